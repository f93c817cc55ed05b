import ArgumentParser
import BridgeHost
import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge`: launched by a browser (argv as Chromium or Firefox pass it) it is the
/// native-messaging host; otherwise a CLI with subcommands.
@main
struct WebAuthnBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webauthn-bridge",
        abstract: "WebAuthn for Firefox and Chromium through your own FIDO2 security key (libfido2).",
        // The one version of host, extension and packages is the repository's VERSION file; scripts/package.sh
        // refuses to build when this line or extension/manifest.json differ from it (a test checks all three).
        version: "0.1.0",
        subcommands: [
            HostCommand.self, TokenCommand.self, DevicesCommand.self, DoctorCommand.self, LogCommand.self,
            BenchCommand.self, DemoCommand.self, KeyCommand.self,
        ]
    )

    static func main() {
        // Before anything else: no PIN typed later may end up in a core file.
        CoreDumps.disable()
        if let launch = LaunchContext.browserLaunch(arguments: CommandLine.arguments) {
            Glibc.exit(HostMode.run(launch, softTokens: SoftTokenDeviceProvider.make))
        }
        main(nil)
    }
}

/// `webauthn-bridge host`: serve native-messaging frames on stdin/stdout without a browser (tests, benchmarks).
struct HostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host", abstract: "Serve native-messaging frames on stdin/stdout, as a browser would launch it.")

    func run() throws {
        throw ExitCode(HostMode.run(.direct, softTokens: SoftTokenDeviceProvider.make))
    }
}
