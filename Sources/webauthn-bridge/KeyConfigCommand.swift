import ArgumentParser
import KeyTool

extension KeyCommand {
    /// `key config always-uv|min-pin-length|force-pin-change`: the key's authenticatorConfig settings.
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the key's settings: always-UV, the minimum PIN length, a forced PIN change.",
            subcommands: [AlwaysUV.self, MinPINLength.self, ForcePINChange.self])

        struct AlwaysUV: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "always-uv",
                abstract: "Turn always-UV on (every use of the key needs its PIN or fingerprint; U2F off) or off.")

            enum State: String, ExpressibleByArgument, CaseIterable { case on, off }

            @Argument(help: "on or off.")
            var state: State

            @OptionGroup var key: KeyOptions

            func run() throws {
                let changed = try KeyConfigurator(access: key.access()).setAlwaysUV(state == .on)
                print("Always-UV is \(changed ? "now" : "already") \(state.rawValue).")
            }
        }

        struct MinPINLength: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "min-pin-length",
                abstract: "Raise the key's minimum PIN length (it can only be raised; a reset brings the maker's back)."
            )

            @Argument(help: "The new minimum, in characters.")
            var length: Int

            @Option(name: .customLong("rp"), help: "A site (RP ID) allowed to read the minimum when it registers.")
            var rpIDs: [String] = []

            @OptionGroup var key: KeyOptions

            func run() throws {
                let result = try KeyConfigurator(access: key.access()).setMinimumPINLength(length, rpIDs: rpIDs)
                print("The key's minimum PIN length is \(result.length).")
                if !rpIDs.isEmpty { print("Sites that may read it: \(rpIDs.joined(separator: ", ")).") }
                if result.pinChangeRequired {
                    print("The key asks for a new PIN before its next use: run `webauthn-bridge key pin change`.")
                }
            }
        }

        struct ForcePINChange: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "force-pin-change", abstract: "Make the key ask for a new PIN before its next use.")

            @OptionGroup var key: KeyOptions

            func run() throws {
                try KeyConfigurator(access: key.access()).forcePINChange()
                print("The key asks for a new PIN before its next use: `webauthn-bridge key pin change`.")
            }
        }
    }
}
