import ArgumentParser
import TokenTool

extension TokenCommand {
    /// `webauthn-bridge token ctaphid FILE` (`TokenTool.CTAPHIDPipe`).
    struct ServeCTAPHID: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ctaphid",
            abstract: "Serve a SoftToken's CTAPHID reports on stdin/stdout (for other CTAP clients in tests).")

        @Argument(help: "Path of the SoftToken state file.")
        var file: String

        func run() throws { try CTAPHIDPipe.serve(tokenFile: file) }
    }
}
