import Glibc
import Threading

/// A started child process known by its PID: waits for it, or stops it.
public struct ProcessHandle: Sendable {
    public let pid: pid_t

    public init(pid: pid_t) { self.pid = pid }

    /// The raw `waitpid` status if the child has exited (and is now reaped), nil while it runs.
    public func reap() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD) ? status : nil
    }

    /// The raw `waitpid` status once the child has exited within `seconds`, nil if it still runs.
    public func waitForExit(seconds: Double) -> Int32? {
        var status: Int32?
        _ = poll(seconds: seconds, every: 5) {
            status = reap()
            return status != nil
        }
        return status
    }

    /// Ends the child and reaps it. SIGINT first: pinentry treats it as "cancel" and terminal pinentries then
    /// restore the terminal's echo (SIGTERM/SIGKILL would leave it off); escalate if it does not go. The first
    /// grace is generous because a pinentry on a loaded machine may need more than half a second.
    ///
    /// The interrupt is repeated during its grace: pinentry-tty's handler only breaks a blocking read, so an
    /// interrupt landing between printing "PIN:" and starting the read is lost and the next one is needed.
    public func stop() -> Int32? {
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

/// Checks `done` every `milliseconds` until it is true or `seconds` have passed; true when it became true. Linux
/// offers no wait with a timeout for a child, nor any wait for a process that is not one.
public func poll(seconds: Double, every milliseconds: Int, until done: () -> Bool) -> Bool {
    let deadline = Deadline.after(.milliseconds(Int(seconds * 1000)))
    while !done() {
        if deadline.isPast { return false }
        usleep(UInt32(milliseconds * 1000))
    }
    return true
}
