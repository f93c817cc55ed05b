import ArgumentParser
import BridgeHost
import Diagnostics
import FIDO
import Glibc
import KeyTool
import Prompts
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge key …`: the owner's view of a security key, in the spirit of `ykman fido` (the logic: `KeyTool`).
/// Keys are found as the host finds them; the PIN comes through the ceremonies' prompt.
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Manage your security key: its PIN, passkeys, fingerprints and settings, or reset it.",
        subcommands: [
            List.self, Info.self, PINCommand.self, Passkeys.self, Fingerprints.self, Reset.self, Config.self,
        ])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys plugged in, as the host finds them.")

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let locations = try KeyOptions.ring().locations()
            if json {
                let rows = locations.map { location -> JSONValue in
                    .object([
                        ("device", .string(location.path)), ("manufacturer", .string(location.manufacturer)),
                        ("product", .string(location.product)), ("software", .bool(location.isSoftware)),
                    ])
                }
                print(JSONValue.array(rows).serializedString)
            } else if locations.isEmpty {
                print("No security key found. Plug one in; if it is plugged in, run `webauthn-bridge doctor`.")
            } else {
                for location in locations { print("\(location.path)\t\(location.manufacturer) \(location.product)") }
            }
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one key's capabilities and PIN state (no PIN needed).")

        @OptionGroup var key: KeyOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let location = try key.location()
            let report = DeviceReport.report(location)
            print(json ? report.json.serializedString : report.text)
        }
    }

    struct Passkeys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the passkeys on a key by site and user, with the slots used and left (asks for the PIN).",
            subcommands: [ListPasskeys.self, Delete.self, Rename.self], defaultSubcommand: ListPasskeys.self)
    }

    struct ListPasskeys: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the passkeys by site and user, with the slots used and left.")

        @OptionGroup var key: KeyOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let report = try PasskeyManager(access: key.access()).list()
            print(json ? report.json.serializedString : report.text)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete one passkey from the key. The site's account then no longer accepts it.")

        @OptionGroup var passkey: PasskeyID

        @Flag(help: "Delete without asking for confirmation (for scripts).")
        var yes = false

        @OptionGroup var key: KeyOptions

        func run() throws {
            let credentialID = try passkey.bytes()
            let yes = yes
            let deleted = try PasskeyManager(access: key.access()).delete(credentialID: credentialID) { passkey in
                yes
                    || KeyOptions.confirm(
                        "Delete the passkey of \(passkey.userName ?? "(no user name)") at \(passkey.rpID)? "
                            + "You will no longer sign in to that account with this key.")
            }
            guard let deleted else {
                print("Nothing deleted.")
                throw ExitCode(1)
            }
            print("Deleted the passkey of \(deleted.userName ?? "(no user name)") at \(deleted.rpID).")
        }
    }
}

extension KeyCommand {
    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the user name or display name a passkey shows (updateUserInformation).")

        @OptionGroup var passkey: PasskeyID

        @Option(help: "The new user name (an option left out keeps the current value).")
        var name: String?

        @Option(help: "The new display name.")
        var displayName: String?

        @OptionGroup var key: KeyOptions

        func run() throws {
            guard name != nil || displayName != nil else {
                throw ValidationError("Give --name, --display-name or both.")
            }
            let credentialID = try passkey.bytes()
            let renamed = try PasskeyManager(access: key.access()).rename(
                credentialID: credentialID, name: name, displayName: displayName)
            print("Renamed the passkey of \(renamed.userName ?? "(no user name)") at \(renamed.rpID).")
        }
    }
}

/// The credential ID a passkey command acts on.
struct PasskeyID: ParsableArguments {
    @Argument(help: "The passkey's credential ID (base64url), as `key passkeys` shows it.")
    var id: String

    func bytes() throws -> [UInt8] {
        guard let bytes = Base64URL.decode(id), !bytes.isEmpty else {
            throw ValidationError("'\(id)' is not a base64url credential ID; copy one from `key passkeys`.")
        }
        return bytes
    }
}

/// `--device` and what every `key` subcommand needs to reach a key.
struct KeyOptions: ParsableArguments {
    @Option(help: "The key to use when several are plugged in (a path from `webauthn-bridge key list`).")
    var device: String?

    static func ring() throws -> KeyRing {
        let configuration = try HostConfiguration.load()
        let log = HostLog(path: configuration.logFile, level: configuration.logLevel)
        return KeyRing(configuration: configuration, log: log, softTokens: SoftTokenDeviceProvider.make)
    }

    func location() throws -> DeviceLocation { try Self.ring().select(device) }

    func access() throws -> KeyAccess {
        let configuration = try HostConfiguration.load()
        let ring = try Self.ring()
        let location = try ring.select(device)
        guard
            let prompt = PromptSelector.select(
                environment: ProcessInfo.processInfo.environment, configuredProgram: configuration.pinentryProgram)
        else {
            throw KeyToolError(
                "No way to ask for the PIN: install pinentry, set WEBAUTHN_BRIDGE_PINENTRY, or run in a terminal.")
        }
        return KeyAccess(ring: ring, location: location, prompt: prompt)
    }

    /// Asks on the terminal; anything but yes (or no terminal to ask on) is no. `refusal` says what did not happen
    /// when there is no terminal.
    static func confirm(_ question: String, refusal: String = "Not deleted") -> Bool {
        guard isatty(STDIN_FILENO) != 0 else {
            let text = "\(question)\n\(refusal): no terminal to confirm on; pass --yes to go ahead without asking.\n"
            _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return false
        }
        print("\(question) [y/N] ", terminator: "")
        fflush(nil)
        return ["y", "yes"].contains(readLine()?.lowercased() ?? "")
    }
}

extension KeyOptions {
    /// One line of progress for the owner, at once (stdout may be a pipe).
    @Sendable static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
