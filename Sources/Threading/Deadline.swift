/// The moment a wait must end, on the one clock every wait in the project uses: the continuous clock, which
/// wall-clock changes (NTP, the user setting the time) do not move. A request's timeout, a poll interval and a
/// key's libfido2 timeout are all measured against it; wall time (`Date`) is only for what people read as a date
/// (log lines, file times).
public struct Deadline: Sendable, Hashable, Comparable {
    public let instant: ContinuousClock.Instant

    public init(_ instant: ContinuousClock.Instant) { self.instant = instant }

    /// Now: a deadline that has already passed, for a wait that must not block.
    public static var now: Deadline { Deadline(.now) }

    /// `duration` from now.
    public static func after(_ duration: Duration) -> Deadline { Deadline(.now + duration) }

    /// True once the deadline is reached.
    public var isPast: Bool { ContinuousClock.now >= instant }

    /// The time left, zero once the deadline passed.
    public var remaining: Duration { max(.zero, instant - .now) }

    /// The time left in whole milliseconds, rounded up, so a wait given it ends no earlier than the deadline; zero
    /// once the deadline passed.
    public var remainingMilliseconds: Int {
        let (seconds, attoseconds) = remaining.components
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let partial = (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
        return Int(seconds * 1000 + partial)
    }

    public static func < (a: Deadline, b: Deadline) -> Bool { a.instant < b.instant }
}
