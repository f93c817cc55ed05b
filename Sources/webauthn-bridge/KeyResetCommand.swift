import ArgumentParser
import KeyTool

extension KeyCommand {
    /// `key reset [--yes]`: authenticatorReset, after saying that every passkey is lost.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reset the key: every passkey on it, its PIN and its fingerprints are deleted for good.",
            discussion:
                "A key takes a reset only within about 10 seconds of being plugged in, and after a touch: when it "
                + "refuses, the command waits while you unplug it and plug it in again.")

        @Flag(help: "Reset without asking for confirmation (for scripts).")
        var yes = false

        @OptionGroup var key: KeyOptions

        func run() throws {
            let yes = yes
            let done = try KeyResetter(access: key.access()).reset(
                confirm: { location in
                    yes
                        || KeyOptions.confirm(
                            "Reset the key \(location.path) (\(location.product))? Every passkey on it is lost for "
                                + "good, with its PIN and fingerprints: you can no longer sign in with it to any "
                                + "account that uses it.", refusal: "Not reset")
                }, say: KeyOptions.say)
            guard done else {
                print("Nothing reset.")
                throw ExitCode(1)
            }
            print("The key is reset: it holds no passkeys and has no PIN.")
        }
    }
}
