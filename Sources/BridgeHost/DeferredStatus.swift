import Dispatch
import Synchronization

/// The status frames that announce a wait on the key ("uv", then "touch"), held back for a moment.
///
/// A key that answers within `grace` (a SoftToken, a key touched before it was asked) ends the request before
/// the page could have shown the notice for more than a frame or two; sending nothing saves the frames, the
/// extension's port messages and a notice drawn and removed, about 1 ms of a 5–6 ms ceremony in Chromium. A
/// key that really waits for the user is announced 50 ms in: before anyone can reach it, and below what a
/// person perceives as a delay. When a notice is already up (PIN entry, key choice), the statuses go at once,
/// so it never shows a step that is over.
final class DeferredStatus: Sendable {
    static let grace: DispatchTimeInterval = .milliseconds(50)
    /// A queue of its own (overcommitting): the shared global queue can be busy with blocked work, which would
    /// delay the notice of a key that waits.
    private static let timers = DispatchQueue(label: "webauthn-bridge.deferred-status")

    private let replies: ReplyChannel
    private let id: String
    private let pending: Mutex<[CeremonyStatus]>

    /// Sends `statuses` now if the page already shows a notice for `id`, otherwise after `grace` unless
    /// `withdraw()` comes first.
    init(
        _ statuses: [CeremonyStatus], for id: String, on replies: ReplyChannel,
        grace: DispatchTimeInterval = DeferredStatus.grace
    ) {
        self.replies = replies
        self.id = id
        pending = Mutex(statuses)
        if replies.hasNotice(id) {
            flush()
            return
        }
        Self.timers.asyncAfter(deadline: .now() + grace) { [self] in flush() }
    }

    /// The wait is over: statuses not yet sent never will be. Call before the request's answer, so no status
    /// can follow it.
    func withdraw() {
        pending.withLock { $0 = [] }
    }

    /// Sends under the lock, so a `withdraw()` that returned has either seen them sent or cleared them.
    private func flush() {
        pending.withLock { statuses in
            for status in statuses { replies.status(id, status) }
            statuses = []
        }
    }
}
