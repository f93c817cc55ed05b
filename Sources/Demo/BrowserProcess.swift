import Glibc
import Processes

/// The browser the demo started (`Spawn`): a process-group leader (a new session), so that stopping it reaches its
/// helper processes, and known only by its PID. Its output goes to a log file in the demo's directory.
///
/// It ends with the demo even when the demo cannot end it (killed with SIGKILL, or crashed): it is started
/// through the host's own parent-death launcher (`ParentDeathSignal`, `setpriv --pdeathsig SIGINT`), which
/// sets the kernel's parent-death signal and then executes the browser under the same PID. SIGINT ends both
/// browsers (Chromium closes its profile and native hosts in order, as on SIGTERM). The signal follows the
/// thread that started the browser: the demo starts it on its main thread, which lives as long as the demo.
public final class BrowserProcess: Sendable {
    public let pid: pid_t
    public let logPath: String

    /// `launcher`: the command `executable` is started through (empty: directly).
    public init(
        executable: String, arguments: [String], environment: [(String, String)], logPath: String,
        launcher: [String] = ParentDeathSignal.launcher
    ) throws(DemoError) {
        let environment = currentEnvironment().merging(environment, uniquingKeysWith: { $1 })
        do {
            pid = try Spawn.start(
                launcher + [executable] + arguments, environment: environment.map { "\($0.key)=\($0.value)" },
                stdin: .file("/dev/null", flags: O_RDONLY),
                stdout: .file(logPath, flags: O_WRONLY | O_CREAT | O_APPEND),
                stderr: .descriptor(1), newSession: true)
        } catch {
            throw DemoError("\(error)")
        }
        self.logPath = logPath
    }

    /// The waitpid status once the browser has exited (and is reaped), nil while it runs.
    public func reap() -> Int32? { ProcessHandle(pid: pid).reap() }

    /// Ends the browser's process group: SIGTERM (browsers then close their windows, profiles and native hosts
    /// in order), SIGKILL after `grace` seconds; then whatever is left of the group.
    public func stop(grace: Double = 10) {
        if reap() == nil {
            kill(-pid, SIGTERM)
            if !poll(seconds: grace, every: 20, until: { reap() != nil }) {
                kill(-pid, SIGKILL)
                _ = poll(seconds: 5, every: 20, until: { reap() != nil })
            }
        }
        kill(-pid, SIGKILL)  // helpers still in the group; the group id stays reserved while any member lives
    }

    /// The last lines of the browser's output, to show when it ended on its own.
    public func outputTail(lines: Int = 15) -> String {
        guard let text = readFile(logPath, limit: 4 << 20) else { return "" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}
