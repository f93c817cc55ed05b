import Dispatch
import FIDO
import Prompts
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shared state of the one running ceremony: the reader thread cancels it or delivers the user's
/// account choice; the libfido2 thread polls and waits on it.
final class CeremonyController: @unchecked Sendable {
    let id: String
    private let condition = Condition()
    private var cancelled = false
    private var devices: [ObjectIdentifier: Device] = [:]
    private var prompt: (any PINPrompt)?
    /// How many PIN prompts the ceremony opened: a key pulled out after one ends the request (`KeyWatch`).
    private var prompts = 0
    private var selection: Int??
    /// Between `expectSelection` and the end of `awaitSelection`: a chooser is open and takes one answer.
    private var choosing = false

    /// Time spent inside libfido2 calls (and so in the key or SoftToken), for the benchmark's split.
    private var deviceNanoseconds: Int64 = 0

    init(id: String) { self.id = id }

    var deviceTime: Int64 { condition.withLock { deviceNanoseconds } }

    var isCancelled: Bool { condition.withLock { cancelled } }

    /// Aborts whatever the ceremony waits on: the key (CTAPHID_CANCEL), a PIN prompt, a selection, a sleep.
    ///
    /// A key ignores CTAPHID_CANCEL while it has no request pending, and the request may still be on its
    /// way (libfido2 sends it after the device was registered here), so the cancel is repeated a few times
    /// for as long as a key is registered.
    func cancel() {
        let activePrompt = condition.withLock { () -> (any PINPrompt)? in
            cancelled = true
            condition.broadcast()
            return prompt
        }
        activePrompt?.cancel()
        cancelRegisteredKeys(repeats: Self.cancelRepeats)
    }

    static let cancelRepeats = 10
    static let cancelInterval: DispatchTimeInterval = .milliseconds(50)

    private func cancelRegisteredKeys(repeats: Int) {
        let keys = condition.withLock { Array(devices.values) }
        guard !keys.isEmpty else { return }
        for key in keys { key.cancel() }
        guard repeats > 1 else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.cancelInterval) { [self] in
            cancelRegisteredKeys(repeats: repeats - 1)
        }
    }

    /// Registers `device` for cancellation while `body` runs on it.
    func using<T, E: Error>(_ device: Device, _ body: () throws(E) -> T) throws(E) -> T {
        let alreadyCancelled = condition.withLock { () -> Bool in
            devices[ObjectIdentifier(device)] = device
            return cancelled
        }
        if alreadyCancelled { device.cancel() }
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            condition.withLock {
                devices.removeValue(forKey: ObjectIdentifier(device))
                deviceNanoseconds += Self.nanoseconds(elapsed)
            }
        }
        return try body()
    }

    func using<T, E: Error>(_ activePrompt: any PINPrompt, _ body: () throws(E) -> T) throws(E) -> T {
        let alreadyCancelled = condition.withLock { () -> Bool in
            prompt = activePrompt
            prompts += 1
            return cancelled
        }
        if alreadyCancelled { activePrompt.cancel() }
        defer { condition.withLock { prompt = nil } }
        return try body()
    }

    var promptsOpened: Int { condition.withLock { prompts } }

    /// Closes the PIN prompt that is open, if one is, without cancelling the ceremony: its key was pulled out.
    /// True when one was open.
    func dismissPrompt() -> Bool {
        let open = condition.withLock { prompt }
        open?.cancel()
        return open != nil
    }

    /// Runs `body` (a libfido2 call not tied to one registered key, such as opening keys) counting its time
    /// as device time.
    func timed<T>(_ body: () -> T) -> T {
        let started = ContinuousClock.now
        let value = body()
        let elapsed = ContinuousClock.now - started
        condition.withLock { deviceNanoseconds += Self.nanoseconds(elapsed) }
        return value
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }

    /// Sleeps until `deadline` or until cancelled, whichever is first; true when cancelled.
    func sleep(until deadline: Deadline) -> Bool {
        condition.withLock {
            while !cancelled, !deadline.isPast { _ = condition.wait(until: deadline) }
            return cancelled
        }
    }

    /// The reader thread hands over the answer to a `select-account` status (nil: the user declined). False,
    /// and nothing delivered, when no chooser is open: an answer must not outlive the question, or it would
    /// be taken as the answer to a later one.
    @discardableResult
    func deliverSelection(_ index: Int?) -> Bool {
        condition.withLock {
            guard choosing, selection == nil else { return false }
            selection = .some(index)
            condition.broadcast()
            return true
        }
    }

    enum SelectionOutcome: Equatable {
        case chosen(Int?)
        case cancelled, timedOut
    }

    /// Opens the chooser for one answer; call before asking, since the answer may arrive before `awaitSelection`.
    func expectSelection() {
        condition.withLock {
            selection = nil
            choosing = true
        }
    }

    func awaitSelection(until deadline: Deadline) -> SelectionOutcome {
        condition.withLock {
            defer { choosing = false }
            while selection == nil, !cancelled, !deadline.isPast { _ = condition.wait(until: deadline) }
            if cancelled { return .cancelled }
            guard let answer = selection else { return .timedOut }
            return .chosen(answer)
        }
    }
}
