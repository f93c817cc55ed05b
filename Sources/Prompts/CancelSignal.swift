import Glibc
import Processes
import Synchronization

/// Wakes a thread blocked in `poll` from another thread (`PINPrompt.cancel()`), through a self-pipe.
///
/// One instance per read: created when a read starts and closed when it ends, so a `cancel()` that arrives
/// between reads cannot leak into the next one.
final class CancelSignal: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    private let fired = Atomic<Bool>(false)

    init() throws(PromptError) {
        guard let (readEnd, writeEnd) = makePipe(nonBlocking: true) else {
            throw .failed("cannot create a pipe (errno \(errno))")
        }
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    var isFired: Bool { fired.load(ordering: .acquiring) }

    /// Async-signal-safe in spirit: one atomic store and one non-blocking write.
    func fire() {
        fired.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Blocks until `fd` is readable (or hung up); throws `.cancelled` as soon as `fire()` was called.
    func waitReadable(_ fd: Int32) throws(PromptError) {
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if isFired { throw .cancelled }
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .failed("poll failed (errno \(errno))")
            }
            if isFired { throw .cancelled }
            if fds[0].revents != 0 { return }
        }
    }
}

/// The one read a prompt may have open: a second read meanwhile is refused, and `cancel()` reaches the open one.
final class ActiveRead: Sendable {
    private let current = Mutex<CancelSignal?>(nil)

    /// Runs `body` as the open read, with a fresh cancel signal; refuses when another read is open.
    func run<R>(_ body: (CancelSignal) throws(PromptError) -> R) throws(PromptError) -> R {
        let signal = try CancelSignal()
        let installed = current.withLock { active -> Bool in
            guard active == nil else { return false }
            active = signal
            return true
        }
        guard installed else { throw .failed("another PIN prompt is already open") }
        defer { current.withLock { $0 = nil } }
        return try body(signal)
    }

    /// Cancels the open read, if any.
    func cancel() {
        current.withLock { $0?.fire() }
    }
}
