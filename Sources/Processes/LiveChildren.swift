import Glibc
import Synchronization

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
