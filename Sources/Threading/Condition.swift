#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// A mutex with a condition variable, the part of NSCondition this project uses. It lives here because
/// NSCondition is only in full Foundation, whose ICU data and start-up cost the host would otherwise carry.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let variable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(variable, nil)  // default clock CLOCK_REALTIME, matching Date deadlines
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
    public func wait(until deadline: Date) -> Bool {
        let seconds = max(0, deadline.timeIntervalSince1970)
        var wholeSeconds = seconds.rounded(.down)
        var nanoseconds = ((seconds - wholeSeconds) * 1e9).rounded()
        if nanoseconds >= 1e9 { wholeSeconds += 1; nanoseconds -= 1e9 }
        var limit = timespec(tv_sec: Int(wholeSeconds), tv_nsec: Int(nanoseconds))
        return pthread_cond_timedwait(variable, mutex, &limit) == 0
    }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
