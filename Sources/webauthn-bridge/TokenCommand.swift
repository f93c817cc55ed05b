import ArgumentParser
import SoftToken
import TokenTool

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge token create|show|profiles|u2f-register|ctaphid`: manage SoftToken state files, the software
/// authenticator used for tests and demos (what is shown and how: `TokenTool`). A SoftToken is a development/test
/// authenticator: its keys sit unprotected in one file.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create and inspect SoftToken files (software development/test authenticators, not security keys).",
        subcommands: [Create.self, Show.self, Profiles.self, U2FRegister.self, ServeCTAPHID.self]
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

        @Option(
            help:
                "How the simulated user answers touch requests: auto, deny, delay:MILLISECONDS or signal (FILE.touch).")
        var presence: String = "auto"

        @Option(help: "Attestation: certificate (packed with a token-made x5c) or self.")
        var attestation: String?

        @Option(
            name: .customLong("no-credentials"),
            help: "getAssertion's \"no credentials\": after-touch (CTAP 2.0) or at-once (2.1); default: by version.")
        var noCredentialsOrder: String?

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
            guard let mode = PresenceOption.parse(presence) else {
                throw ValidationError("--presence must be auto, deny, delay:MILLISECONDS or signal, not '\(presence)'")
            }
            configuration.presence = mode
            guard let mode = AttestationMode(rawValue: attestation ?? configuration.attestation.rawValue) else {
                throw ValidationError("--attestation must be 'certificate' or 'self', not '\(attestation ?? "")'")
            }
            configuration.attestation = mode
            if let noCredentialsOrder {
                guard let order = NoCredentialsOrder(rawValue: noCredentialsOrder) else {
                    throw ValidationError(
                        "--no-credentials must be after-touch or at-once, not '\(noCredentialsOrder)'")
                }
                configuration.noCredentialsOrder = order
            }
            if force, FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
            let token = try SoftToken.create(at: file, configuration: configuration, pin: pin)
            print("Created SoftToken \(file) — a development/test authenticator, not a hardware security key.")
            print(TokenDescription.text(token.summary()))
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
                print(String(decoding: try encoder.encode(TokenSummaryJSON(summary)), as: UTF8.self))
            } else {
                print(TokenDescription.text(summary))
            }
        }
    }

    struct Profiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the kinds of real keys a SoftToken can imitate (token create --profile NAME).")

        func run() throws {
            for profile in SoftTokenProfile.all {
                print(
                    "\(profile.name)\n  \(profile.summary)\n  \(TokenDescription.capabilities(profile.configuration))")
            }
        }
    }
}
