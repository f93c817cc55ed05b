import ArgumentParser
import SoftToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge token create|show`: manage SoftToken state files, the software authenticator used for
/// tests and demos. A SoftToken is a development/test authenticator: its keys sit unprotected in one file.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create and inspect SoftToken files (software development/test authenticators, not security keys).",
        subcommands: [Create.self, Show.self, Profiles.self, U2FRegister.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a SoftToken state file (mode 0600). For development and tests only.")

        @Argument(help: "Path of the state file to create.")
        var file: String

        @Option(
            help: "Imitate a kind of real key (see `webauthn-bridge token profiles`); the other options apply on top.")
        var profile: String?

        @Option(help: "Set this PIN on the new token.")
        var pin: String?

        @Flag(help: "Give the token built-in user verification (a simulated fingerprint that always matches).")
        var uv = false

        @Flag(
            name: .customLong("uv-fails"),
            help: "With --uv: every fingerprint attempt fails, until built-in UV is blocked.")
        var uvFails = false

        @Flag(name: .customLong("no-rk"), help: "Refuse discoverable (resident) credentials.")
        var noResidentKeys = false

        @Option(help: "How the simulated user answers touch requests: auto, deny or delay:MILLISECONDS.")
        var presence: String = "auto"

        @Option(help: "Attestation: certificate (packed with a token-made x5c) or self.")
        var attestation: String?

        @Flag(help: "Replace FILE if it exists.")
        var force = false

        func run() throws {
            var configuration = SoftTokenConfiguration()
            if let profile {
                guard let found = SoftTokenProfile.named(profile) else {
                    throw ValidationError(
                        "unknown profile '\(profile)'; known: \(SoftTokenProfile.all.map(\.name).joined(separator: ", "))"
                    )
                }
                configuration = found.configuration
            }
            if noResidentKeys { configuration.residentKeys = false }
            if uv { configuration.builtInUV = true }
            if uvFails {
                guard configuration.builtInUV else {
                    throw ValidationError("--uv-fails needs --uv or a profile with built-in UV")
                }
                configuration.uvOutcome = .fail
            }
            configuration.presence = try Self.parsePresence(presence)
            guard let mode = AttestationMode(rawValue: attestation ?? configuration.attestation.rawValue) else {
                throw ValidationError("--attestation must be 'certificate' or 'self', not '\(attestation ?? "")'")
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

    struct Profiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the kinds of real keys a SoftToken can imitate (token create --profile NAME).")

        func run() throws {
            for profile in SoftTokenProfile.all {
                print("\(profile.name)\n  \(profile.summary)\n  \(TokenCommand.capabilities(profile.configuration))")
            }
        }
    }

    /// One line of what the key speaks and can do, as its CTAPHID INIT and getInfo say it.
    static func capabilities(_ c: SoftTokenConfiguration) -> String {
        var parts: [String] = []
        if c.ctap2 { parts.append(c.ctap21 ? "CTAP 2.1" : "CTAP 2.0") }
        if c.u2f { parts.append(c.alwaysUV ? "U2F (off while alwaysUv)" : "U2F") }
        guard c.ctap2 else {
            return (parts + ["ES256", "no discoverable credentials, no PIN, no user verification"]).joined(
                separator: "; ")
        }
        parts.append("algorithms \(c.algorithms.map { $0 == -8 ? "EdDSA" : "ES256" }.joined(separator: ", "))")
        parts.append(
            "PIN protocols \((c.ctap21 ? c.pinUvAuthProtocols : [1]).map(String.init).joined(separator: ", "))")
        if !c.ctap21 || !c.pinUvAuthTokenPermissions { parts.append("no pinUvAuthToken") }
        parts.append(c.residentKeys ? "discoverable credentials" : "no discoverable credentials")
        if c.builtInUV { parts.append("built-in UV") }
        if c.alwaysUV { parts.append("alwaysUv") }
        if c.ctap21 && c.largeBlobs { parts.append("largeBlobs") }
        parts.append("extensions \((c.extensions ?? SoftToken.supportedExtensions).joined(separator: ", "))")
        parts.append("maxMsgSize \(c.maxMessageSize)")
        if let count = c.maxCredentialCountInList { parts.append("\(count) credentials per list") }
        return parts.joined(separator: "; ")
    }

    /// Human-readable summary, grouped by relying party and user.
    static func describe(_ summary: SoftTokenSummary) -> String {
        let configuration = summary.configuration
        var lines = [
            "SoftToken \(summary.path)",
            "  NOTE: \(summary.notice)",
            "  profile: \(configuration.profile.map { name in SoftTokenProfile.named(name).map { "\(name) — \($0.summary)" } ?? name } ?? "none (full CTAP 2.1 SoftToken)")",
            "  speaks: \(capabilities(configuration))",
            "  AAGUID: \(hex(summary.aaguid))",
            "  PIN: \(summary.pinSet ? "set, \(summary.pinRetries) retries left" : "not set")",
            "  resident keys: \(configuration.residentKeys ? "yes" : "no"); built-in UV: \(configuration.builtInUV ? "yes (\(summary.uvRetries) retries left)" : "no")",
            "  presence: \(presenceText(configuration.presence)); attestation: \(configuration.attestation.rawValue); PIN/UV protocols: \(configuration.pinUvAuthProtocols.map(String.init).joined(separator: ", "))",
            "  large-blob array: \(summary.largeBlobArrayBytes) bytes",
            "  credentials: \(summary.credentials.count)",
        ]
        let byRP = Dictionary(grouping: summary.credentials, by: \.rpID)
        for (rpID, credentials) in byRP.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(rpID)")
            for credential in credentials {
                let user =
                    credential.userName.map { "\($0)" + (credential.userDisplayName.map { " (\($0))" } ?? "") }
                    ?? "(unknown user)"
                let kind = credential.discoverable ? "discoverable" : "server-side"
                let algorithm = credential.algorithm == -8 ? "EdDSA" : "ES256"
                lines.append("    \(user)  user id \(hex(credential.userID))")
                lines.append(
                    "      \(kind), \(algorithm), credProtect \(credential.credProtect), sign count \(credential.signCount)"
                )
                lines.append(
                    "      credential id \(hex(credential.credentialID.prefix(16)))… (\(credential.credentialID.count) bytes)"
                )
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
    let profile: String?
    let capabilities: String
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
        profile = s.configuration.profile
        capabilities = TokenCommand.capabilities(s.configuration)
        largeBlobArrayBytes = s.largeBlobArrayBytes
        credentials = s.credentials.map {
            Credential(
                rpID: $0.rpID, userName: $0.userName, userDisplayName: $0.userDisplayName,
                userID: TokenCommand.hex($0.userID),
                credentialID: TokenCommand.hex($0.credentialID), signCount: $0.signCount, discoverable: $0.discoverable,
                algorithm: $0.algorithm, credProtect: $0.credProtect)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
