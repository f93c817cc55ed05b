import ArgumentParser
import KeyTool

extension KeyCommand {
    /// `key pin set|change`: the PIN through the ceremonies' prompt (pinentry, else the terminal), never an argument.
    struct PINCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pin", abstract: "Set or change the key's PIN (asked through pinentry or the terminal).",
            subcommands: [Set.self, Change.self])

        struct Set: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set the first PIN of a key that has none (the new PIN is asked twice).")

            @OptionGroup var key: KeyOptions

            func run() throws {
                try PINManager(access: key.access()).set()
                print("The key's PIN is set. Sites that ask for user verification will ask for it.")
            }
        }

        struct Change: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Change the key's PIN: the current one, then the new one twice.")

            @OptionGroup var key: KeyOptions

            func run() throws {
                try PINManager(access: key.access()).change()
                print("The key's PIN is changed.")
            }
        }
    }
}
