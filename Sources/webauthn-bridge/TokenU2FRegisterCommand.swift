import ArgumentParser
import TokenTool

extension TokenCommand {
    /// `webauthn-bridge token u2f-register FILE --appid URL` (`TokenTool.U2FRegistration`).
    struct U2FRegister: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "u2f-register",
            abstract: "Register a U2F-era credential under an AppID on a SoftToken (for trying appid/appidExclude).")

        @Argument(help: "Path of the SoftToken state file.")
        var file: String

        @Option(help: "The AppID URL the credential is registered under (https://…).")
        var appid: String

        func run() throws {
            do {
                print(try U2FRegistration.register(tokenFile: file, appid: appid).serializedString)
            } catch let refusal as U2FRegistration.Refusal {
                throw ValidationError(refusal.description)
            }
        }
    }
}
