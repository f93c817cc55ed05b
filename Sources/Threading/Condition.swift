import Glibc

/// A mutex with a condition variable, the part of NSCondition this project uses. It lives here because
/// NSCondition is only in full Foundation, whose ICU data and start-up cost the host would otherwise carry.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let variable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        // Timed waits measure on CLOCK_MONOTONIC, so setting the wall clock neither ends nor stretches them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(variable, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(variable)
        pthread_mutex_destroy(mutex)
        variable.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func signal() { pthread_cond_signal(variable) }
    public func broadcast() { pthread_cond_broadcast(variable) }

    /// Waits for a signal; the caller holds the lock and re-checks its predicate (wake-ups may be spurious).
    public func wait() { pthread_cond_wait(variable, mutex) }

    /// Waits for a signal or `deadline`; false when the deadline passed.
    @discardableResult
    public func wait(until deadline: Deadline) -> Bool {
        // The time left, laid on CLOCK_MONOTONIC's now (the continuous clock may count suspended time too).
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let left = deadline.remaining.components
        var seconds = now.tv_sec + Int(left.seconds)
        var nanoseconds = now.tv_nsec + Int(left.attoseconds / 1_000_000_000)
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        var limit = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        return pthread_cond_timedwait(variable, mutex, &limit) == 0
    }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
