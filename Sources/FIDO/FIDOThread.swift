import Threading

/// The one thread that makes libfido2 calls. libfido2's log handler and debug flag are thread-local,
/// and Swift tasks hop threads, so every device call is a job on this thread (only `Device.cancel()`
/// is called from elsewhere, which libfido2 permits).
public final class FIDOThread: @unchecked Sendable {
    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []

    /// Starts the thread and attaches libfido2's debug log to `logSink` on it (nil: no libfido2 trace).
    public init(logSink: FIDOLibrary.LogSink?) {
        startDetachedThread(name: "libfido2") { [self] in
            FIDOLibrary.attachLogging(to: logSink)
            runJobs()
        }
    }

    /// Queues `job`; jobs run one after another in submission order.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the libfido2 thread and waits for its result (for CLI commands).
    public func sync<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let done = Condition()
        nonisolated(unsafe) var result: T?
        submit {
            let value = body()
            done.lock()
            result = value
            done.signal()
            done.unlock()
        }
        done.lock()
        defer { done.unlock() }
        while true {
            if let result { return result }
            done.wait()
        }
    }

    private func runJobs() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
