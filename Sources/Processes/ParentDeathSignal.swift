/// Starts a child so that it ends with its parent even when the parent cannot end it (killed with SIGKILL, or
/// crashed): util-linux's `setpriv` sets the parent-death signal (PR_SET_PDEATHSIG) in the child and then runs
/// the program, which keeps it under the same PID — a step posix_spawn has no way to take. The signal is SIGINT:
/// pinentry's cancel, so a terminal pinentry puts the terminal back, and an orderly end for a browser. The kernel
/// sends it when the thread that started the child ends: the host starts every pinentry on its libfido2 thread
/// and the demo its browser on its main thread, each living as long as the process.
/// Without `setpriv` there is no launcher: the parent still stops its children on every ending it sees.
public enum ParentDeathSignal {
    /// Looked up in the system directories only, not in a PATH the host inherited.
    public static var launcher: [String] {
        guard let setpriv = ChildProcess.resolveExecutable("setpriv", environment: ["PATH": "/usr/bin:/bin"]) else {
            return []
        }
        return [setpriv, "--pdeathsig", "SIGINT", "--"]
    }
}
