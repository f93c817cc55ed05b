import Glibc

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

/// Starts a pinentry so that it ends with the host even when the host cannot end it (killed with SIGKILL, or
/// crashed): util-linux's `setpriv` sets the parent-death signal (PR_SET_PDEATHSIG) in the child and then runs
/// pinentry, which keeps it — a step posix_spawn has no way to take. The signal is SIGINT, pinentry's cancel,
/// so a terminal pinentry puts the terminal back. The kernel sends it when the thread that started the child
/// ends; the host starts every pinentry on its libfido2 thread, which lives as long as the process.
/// Without `setpriv` there is no launcher: the host still stops its pinentry on every ending it sees.
public enum ParentDeathSignal {
    /// Looked up in the system directories only, not in a PATH the host inherited.
    public static var launcher: [String] {
        guard let setpriv = ChildProcess.resolveExecutable("setpriv", environment: ["PATH": "/usr/bin:/bin"]) else {
            return []
        }
        return [setpriv, "--pdeathsig", "SIGINT", "--"]
    }
}
