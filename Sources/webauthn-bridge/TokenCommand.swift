import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SoftToken

/// `webauthn-bridge token create|show`: manage SoftToken state files, the software authenticator used for
/// tests and demos. A SoftToken is a development/test authenticator: its keys sit unprotected in one file.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create and inspect SoftToken files (software development/test authenticators, not security keys).",
        subcommands: [Create.self, Show.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a SoftToken state file (mode 0600). For development and tests only.")

        @Argument(help: "Path of the state file to create.")
        var file: String

        @Option(help: "Set this PIN on the new token.")
        var pin: String?

        @Flag(help: "Give the token built-in user verification (a simulated fingerprint that always matches).")
        var uv = false

        @Flag(name: .customLong("uv-fails"), help: "With --uv: every fingerprint attempt fails, until built-in UV is blocked.")
        var uvFails = false

        @Flag(name: .customLong("no-rk"), help: "Refuse discoverable (resident) credentials.")
        var noResidentKeys = false

        @Option(help: "How the simulated user answers touch requests: auto, deny or delay:MILLISECONDS.")
        var presence: String = "auto"

        @Option(help: "Attestation: certificate (packed with a token-made x5c) or self.")
        var attestation: String = "certificate"

        @Flag(help: "Replace FILE if it exists.")
        var force = false

        func run() throws {
            var configuration = SoftTokenConfiguration()
            configuration.residentKeys = !noResidentKeys
            configuration.builtInUV = uv
            if uvFails {
                guard uv else { throw ValidationError("--uv-fails needs --uv") }
                configuration.uvOutcome = .fail
            }
            configuration.presence = try Self.parsePresence(presence)
            guard let mode = AttestationMode(rawValue: attestation) else {
                throw ValidationError("--attestation must be 'certificate' or 'self', not '\(attestation)'")
            }
            configuration.attestation = mode
            if force, FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
            let token = try SoftToken.create(at: file, configuration: configuration, pin: pin)
            print("Created SoftToken \(file) — a development/test authenticator, not a hardware security key.")
            print(TokenCommand.describe(token.summary()))
        }

        static func parsePresence(_ text: String) throws -> PresenceMode {
            switch text {
            case "auto", "automatic": return .automatic
            case "deny": return .deny
            default:
                if text.hasPrefix("delay:"), let ms = Int(text.dropFirst("delay:".count)), ms >= 0 {
                    return .delay(milliseconds: ms)
                }
                throw ValidationError("--presence must be auto, deny or delay:MILLISECONDS, not '\(text)'")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a SoftToken's credentials, counters and PIN state (never its secrets).")

        @Argument(help: "Path of the state file.")
        var file: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let summary = try SoftToken(stateFile: file).summary()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(ShowOutput(summary)), as: UTF8.self))
            } else {
                print(TokenCommand.describe(summary))
            }
        }
    }

    /// Human-readable summary, grouped by relying party and user.
    static func describe(_ summary: SoftTokenSummary) -> String {
        let configuration = summary.configuration
        var lines = [
            "SoftToken \(summary.path)",
            "  NOTE: \(summary.notice)",
            "  AAGUID: \(hex(summary.aaguid))",
            "  PIN: \(summary.pinSet ? "set, \(summary.pinRetries) retries left" : "not set")",
            "  resident keys: \(configuration.residentKeys ? "yes" : "no"); built-in UV: \(configuration.builtInUV ? "yes (\(summary.uvRetries) retries left)" : "no")",
            "  presence: \(presenceText(configuration.presence)); attestation: \(configuration.attestation.rawValue); PIN/UV protocols: \(configuration.pinUvAuthProtocols.map(String.init).joined(separator: ", "))",
            "  large-blob array: \(summary.largeBlobArrayBytes) bytes",
            "  credentials: \(summary.credentials.count)",
        ]
        let byRP = Dictionary(grouping: summary.credentials, by: \.rpID)
        for rpID in byRP.keys.sorted() {
            lines.append("  \(rpID)")
            for credential in byRP[rpID]! {
                let user = credential.userName.map { "\($0)" + (credential.userDisplayName.map { " (\($0))" } ?? "") } ?? "(unknown user)"
                let kind = credential.discoverable ? "discoverable" : "server-side"
                let algorithm = credential.algorithm == -8 ? "EdDSA" : "ES256"
                lines.append("    \(user)  user id \(hex(credential.userID))")
                lines.append("      \(kind), \(algorithm), credProtect \(credential.credProtect), sign count \(credential.signCount)")
                lines.append("      credential id \(hex(credential.credentialID.prefix(16)))… (\(credential.credentialID.count) bytes)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func presenceText(_ mode: PresenceMode) -> String {
        switch mode {
        case .automatic: return "auto"
        case .deny: return "deny"
        case .delay(let ms): return "delay:\(ms)"
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

/// `token show --json`: the summary with byte strings as hex.
private struct ShowOutput: Encodable {
    struct Credential: Encodable {
        let rpID: String
        let userName: String?
        let userDisplayName: String?
        let userID: String
        let credentialID: String
        let signCount: UInt32
        let discoverable: Bool
        let algorithm: Int
        let credProtect: Int
    }
    let notice: String
    let path: String
    let aaguid: String
    let pinSet: Bool
    let pinRetries: Int
    let uvRetries: Int
    let residentKeys: Bool
    let builtInUV: Bool
    let presence: String
    let attestation: String
    let pinUvAuthProtocols: [Int]
    let largeBlobArrayBytes: Int
    let credentials: [Credential]

    init(_ s: SoftTokenSummary) {
        notice = s.notice
        path = s.path
        aaguid = TokenCommand.hex(s.aaguid)
        pinSet = s.pinSet
        pinRetries = s.pinRetries
        uvRetries = s.uvRetries
        residentKeys = s.configuration.residentKeys
        builtInUV = s.configuration.builtInUV
        presence = TokenCommand.presenceText(s.configuration.presence)
        attestation = s.configuration.attestation.rawValue
        pinUvAuthProtocols = s.configuration.pinUvAuthProtocols
        largeBlobArrayBytes = s.largeBlobArrayBytes
        credentials = s.credentials.map {
            Credential(rpID: $0.rpID, userName: $0.userName, userDisplayName: $0.userDisplayName, userID: TokenCommand.hex($0.userID),
                       credentialID: TokenCommand.hex($0.credentialID), signCount: $0.signCount, discoverable: $0.discoverable,
                       algorithm: $0.algorithm, credProtect: $0.credProtect)
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
