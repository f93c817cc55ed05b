import Glibc

/// A helper program (pinentry; for `doctor` and `bench`, the host itself) started by `Spawn`, its stdin and stdout
/// connected to us by pipes.
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
    public init(executable: String, arguments: [String] = [], environment: [String: String]) throws(SpawnError) {
        guard let toChild = makePipe() else { throw .noPipe(errno: errno) }
        guard let fromChild = makePipe() else {
            let code = errno
            close(toChild.read)
            close(toChild.write)
            throw .noPipe(errno: code)
        }
        defer {
            close(toChild.read)
            close(fromChild.write)
        }  // the child's ends, ours no longer
        do {
            pid = try Spawn.start(
                [executable] + arguments, environment: environment.map { "\($0.key)=\($0.value)" },
                stdin: .descriptor(toChild.read), stdout: .descriptor(fromChild.write),
                stderr: .file("/dev/null", flags: O_WRONLY))
        } catch {
            close(toChild.write)
            close(fromChild.read)
            throw error
        }
        input = toChild.write
        output = fromChild.read
        LiveChildren.add(pid)
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
    public static func resolveExecutable(_ program: String, environment: [String: String]) -> String? {
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
