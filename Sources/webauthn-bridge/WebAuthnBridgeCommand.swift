import ArgumentParser

/// `webauthn-bridge`: with no subcommand (or the arguments a browser passes) it runs as the native-messaging host.
@main
struct WebAuthnBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webauthn-bridge",
        abstract: "WebAuthn for Firefox and Chromium through your own FIDO2 security key (libfido2).",
        subcommands: [TokenCommand.self]
    )
}
