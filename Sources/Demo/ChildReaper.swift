import Glibc
import Processes

/// The demo as the reaper of everything it started, directly or not. As a child subreaper it inherits the
/// processes its browser leaves behind (a native-messaging host — this binary — whose browser died, a helper
/// that outlived the browser), so before its temporary directory goes it can stop and reap each by PID:
/// nothing it started may still write there.
enum ChildReaper {
    /// prctl(PR_SET_CHILD_SUBREAPER, 1). prctl is variadic in C and not imported by Swift: looked up with the
    /// fixed argument list the kernel takes.
    @discardableResult
    static func becomeSubreaper() -> Bool {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return false }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Prctl.self)(36, 1, 0, 0, 0) == 0  // PR_SET_CHILD_SUBREAPER
    }

    /// The PIDs whose parent is this process, from /proc.
    static func children() -> [pid_t] {
        let me = getpid()
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var found: [pid_t] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), let fields = ProcessStat.fields(pid) else { continue }
            if fields.count > 1, pid_t(fields[1]) == me { found.append(pid) }
        }
        return found
    }

    /// Reaps every child that has exited; true when none is left.
    static func reapExited() -> Bool {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            if pid > 0 { continue }
            return pid < 0 && errno == ECHILD
        }
    }

    /// Stops every child left (SIGTERM, then SIGKILL after `grace`) and reaps them all.
    static func stopAll(grace: Double = 5) {
        guard !reapExited() else { return }
        for pid in children() { kill(pid, SIGTERM) }
        if poll(seconds: grace, every: 20, until: reapExited) { return }
        for pid in children() { kill(pid, SIGKILL) }
        _ = poll(seconds: 5, every: 20, until: reapExited)
    }
}
