import Glibc
import Processes

/// Chooses how to ask for a PIN, in the order README.md's Configuration section gives:
/// `WEBAUTHN_BRIDGE_PINENTRY` > the config file's program > `pinentry` on PATH > `/dev/tty` > nothing.
///
/// An explicitly named program is used even when it does not exist: the read then fails with
/// `.unavailable` naming it, which beats silently falling back to something the user did not configure.
public enum PromptSelector {
    public static let environmentVariable = "WEBAUTHN_BRIDGE_PINENTRY"

    public static func select(environment: [String: String], configuredProgram: String?) -> (any PINPrompt)? {
        select(environment: environment, configuredProgram: configuredProgram, ttyPath: "/dev/tty")
    }

    /// `ttyPath` is a parameter so tests can offer a pseudo-terminal or a path that cannot be opened.
    static func select(
        environment: [String: String], configuredProgram: String?,
        ttyPath: String
    ) -> (any PINPrompt)? {
        let launcher = ParentDeathSignal.launcher
        if let program = environment[environmentVariable], !program.isEmpty {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        if let program = configuredProgram, !program.isEmpty {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        if let program = ChildProcess.resolveExecutable("pinentry", environment: environment) {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        let fd = open(ttyPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            return TerminalPrompt(ttyPath: ttyPath)
        }
        return nil
    }
}
