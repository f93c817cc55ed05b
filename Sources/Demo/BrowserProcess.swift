import Glibc
import Prompts

/// The browser the demo started: a process-group leader (POSIX_SPAWN_SETSID), so that stopping it reaches its
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        Self.closeDescriptorsAboveStderr(&actions)

        // The demo blocks the signals it waits for; the browser starts with none blocked and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&none)
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | Self.setSessionFlag))

        let command = launcher + [executable] + arguments
        let argv = command.map { strdup($0) } + [nil]
        let envp = Self.merged(environment).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else { throw DemoError("cannot start \(executable): \(String(cString: strerror(status)))") }
        pid = child
        self.logPath = logPath
    }

    /// POSIX_SPAWN_SETSID (glibc ≥ 2.26), which Swift's Glibc module does not export.
    static let setSessionFlag: Int32 = 0x80

    /// This process's environment with `overrides` replacing or adding entries.
    static func merged(_ overrides: [(String, String)]) -> [String] {
        let names = Set(overrides.map(\.0))
        var entries: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "="), !names.contains(String(text[..<equals])) { entries.append(text) }
            cursor += 1
        }
        return entries + overrides.map { "\($0.0)=\($0.1)" }
    }

    /// The browser inherits no descriptor of the demo's (its listening socket least of all). glibc ≥ 2.34's
    /// `posix_spawn_file_actions_addclosefrom_np` is not exported to Swift: looked up.
    private static func closeDescriptorsAboveStderr(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// The waitpid status once the browser has exited (and is reaped), nil while it runs.
    public func reap() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD) ? status : nil
    }

    /// Ends the browser's process group: SIGTERM (browsers then close their windows, profiles and native hosts
    /// in order), SIGKILL after `grace` seconds; then whatever is left of the group.
    public func stop(grace: Double = 10) {
        if reap() == nil {
            kill(-pid, SIGTERM)
            if !ChildReaper.waitFor(seconds: grace, until: { reap() != nil }) {
                kill(-pid, SIGKILL)
                _ = ChildReaper.waitFor(seconds: 5, until: { reap() != nil })
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
