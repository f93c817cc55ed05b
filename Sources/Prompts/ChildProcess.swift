import Glibc
import Synchronization
import Threading

/// A helper program (pinentry; for `doctor` and `bench`, the host itself) started with `posix_spawn`, its stdin and stdout connected to us by pipes.
///
/// We signal and reap only this PID, never by name. `deinit` makes sure the child is gone and reaped, so an
/// early return or a thrown error cannot leave a zombie or an orphaned dialog behind.
/// Writing to a child that died raises SIGPIPE: the host and `doctor` ignore it (see NativeMessaging.FrameWriter).
public final class ChildProcess {
    public let pid: pid_t
    /// Our end of the child's stdin.
    public private(set) var input: Int32
    /// Our end of the child's stdout.
    public let output: Int32
    /// The raw `waitpid` status once reaped.
    public private(set) var exitStatus: Int32?

    /// Starts `executable` (an absolute path, see `resolveExecutable`) with exactly `environment`.
    /// Its stderr goes to /dev/null: the host's stderr belongs to the browser.
    public init(executable: String, arguments: [String] = [], environment: [String: String]) throws(PromptError) {
        guard let toChild = makePipe() else { throw .failed("cannot create a pipe (errno \(errno))") }
        guard let fromChild = makePipe() else {
            close(toChild.read)
            close(toChild.write)
            throw .failed("cannot create a pipe (errno \(errno))")
        }
        defer {
            close(toChild.read)
            close(fromChild.write)
        }  // the child's ends, ours no longer

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild.read, 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild.write, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        Self.closeOtherDescriptors(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        // The child starts with default signal handling and nothing blocked, whatever this thread has:
        // the host ignores SIGPIPE and runtime threads may block signals, and a pinentry that inherited an
        // ignored or blocked SIGINT could not be cancelled politely.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(toChild.write)
            close(fromChild.read)
            throw .unavailable("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        input = toChild.write
        output = fromChild.read
        LiveChildren.add(child)
    }

    /// The child inherits nothing but stdin/stdout/stderr, even descriptors other threads opened without
    /// O_CLOEXEC (a leaked pipe end would keep a peer from ever seeing EOF). glibc ≥ 2.34 has
    /// `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not export: looked up.
    private static func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard
            let symbol = dlsym(
                UnsafeMutableRawPointer(bitPattern: 0),  // RTLD_DEFAULT
                "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// Closes the child's stdin: a well-behaved Assuan server exits on EOF.
    public func closeInput() {
        if input >= 0 {
            close(input)
            input = -1
        }
    }

    /// Reaps the child if it has exited; true when it is gone.
    @discardableResult
    public func reapIfExited() -> Bool {
        if exitStatus != nil { return true }
        guard let status = ProcessHandle(pid: pid).reap() else { return false }
        reaped(status)
        return true
    }

    /// Waits up to `seconds` for the child to exit on its own; true when it has been reaped.
    public func waitForExit(seconds: Double) -> Bool {
        if exitStatus != nil { return true }
        guard let status = ProcessHandle(pid: pid).waitForExit(seconds: seconds) else { return false }
        reaped(status)
        return true
    }

    /// Ends the child and reaps it (`ProcessHandle.stop`).
    ///
    /// Returns false when the child had exited already, true when it had to be signalled: then it may have left
    /// a terminal it changed as it was (killed, or interrupted while putting it back).
    @discardableResult
    public func terminate() -> Bool {
        closeInput()
        if reapIfExited() { return false }
        if let status = ProcessHandle(pid: pid).stop() { reaped(status) }
        return true
    }

    private func reaped(_ status: Int32) {
        exitStatus = status
        LiveChildren.remove(pid)
    }

    deinit {
        terminate()
        close(output)
    }

    /// Finds `program` like execvp would, in the PATH of the child's environment. Nil when nothing runnable.
    static func resolveExecutable(_ program: String, environment: [String: String]) -> String? {
        if program.contains("/") { return access(program, X_OK) == 0 ? program : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(directory)/\(program)"
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}

/// A started child process known by its PID: waits for it, or stops it.
struct ProcessHandle {
    let pid: pid_t

    /// The raw `waitpid` status if the child has exited (and is now reaped), nil while it runs.
    func reap() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD) ? status : nil
    }

    func waitForExit(seconds: Double) -> Int32? {
        let deadline = Deadline.after(.milliseconds(Int(seconds * 1000)))
        while true {
            if let status = reap() { return status }
            if deadline.isPast { return nil }
            usleep(5_000)
        }
    }

    /// Ends the child and reaps it. SIGINT first: pinentry treats it as "cancel" and terminal pinentries then
    /// restore the terminal's echo (SIGTERM/SIGKILL would leave it off); escalate if it does not go. The first
    /// grace is generous because a pinentry on a loaded machine may need more than half a second.
    ///
    /// The interrupt is repeated during its grace: pinentry-tty's handler only breaks a blocking read, so an
    /// interrupt landing between printing "PIN:" and starting the read is lost and the next one is needed.
    func stop() -> Int32? {
        let deadline = Deadline.after(.milliseconds(1500))
        repeat {
            kill(pid, SIGINT)
            if let status = waitForExit(seconds: 0.1) { return status }
        } while !deadline.isPast
        for (signal, grace) in [(SIGTERM, 0.5), (SIGKILL, 5.0)] {
            kill(pid, signal)
            if let status = waitForExit(seconds: grace) { return status }
        }
        return nil
    }
}

/// Every helper process started and not yet reaped, so that a host stopping at once (a termination signal, a
/// browser gone while a request still ran) stops them too: a pinentry must never outlive the host that asked.
public enum LiveChildren {
    private static let pids = Mutex<Set<pid_t>>([])

    static func add(_ pid: pid_t) { pids.withLock { _ = $0.insert(pid) } }
    static func remove(_ pid: pid_t) { pids.withLock { _ = $0.remove(pid) } }

    /// The processes started and not reaped yet.
    public static var running: [pid_t] { pids.withLock { Array($0) } }

    /// Stops (`ProcessHandle.stop`) and reaps every one still running. For the host's last moments: whoever
    /// started a child normally ends it itself.
    public static func stopAll() {
        for pid in running {
            let child = ProcessHandle(pid: pid)
            if child.reap() == nil { _ = child.stop() }
            remove(pid)
        }
    }
}

/// The process environment as a dictionary (Glibc's `environ`), so Prompts needs no Foundation.
@usableFromInline
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let pair = String(cString: pointer)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        entry += 1
    }
    return result
}

/// A close-on-exec pipe. (`pipe2` is not exported by Swift's Glibc module; the window between `pipe` and
/// `fcntl` only matters for a concurrent fork elsewhere, and our own spawns close every other descriptor.)
func makePipe(nonBlocking: Bool = false) -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }
    return (fds[0], fds[1])
}
