import FIDO
import Foundation
import Prompts

/// The shared state of the one running ceremony: the reader thread cancels it or delivers the user's
/// account choice; the libfido2 thread polls and waits on it.
final class CeremonyController: @unchecked Sendable {
    let id: String
    private let condition = NSCondition()
    private var cancelled = false
    private var devices: [ObjectIdentifier: Device] = [:]
    private var prompt: (any PINPrompt)?
    private var selection: Int??

    init(id: String) { self.id = id }

    var isCancelled: Bool { condition.withLock { cancelled } }

    /// Aborts whatever the ceremony waits on: the key (CTAPHID_CANCEL), a PIN prompt, a selection, a sleep.
    func cancel() {
        let (keys, activePrompt) = condition.withLock { () -> ([Device], (any PINPrompt)?) in
            cancelled = true
            condition.broadcast()
            return (Array(devices.values), prompt)
        }
        for key in keys { key.cancel() }
        activePrompt?.cancel()
    }

    /// Registers `device` for cancellation while `body` runs on it.
    func using<T, E: Error>(_ device: Device, _ body: () throws(E) -> T) throws(E) -> T {
        let alreadyCancelled = condition.withLock { () -> Bool in
            devices[ObjectIdentifier(device)] = device
            return cancelled
        }
        if alreadyCancelled { device.cancel() }
        defer { _ = condition.withLock { devices.removeValue(forKey: ObjectIdentifier(device)) } }
        return try body()
    }

    func using<T, E: Error>(_ activePrompt: any PINPrompt, _ body: () throws(E) -> T) throws(E) -> T {
        let alreadyCancelled = condition.withLock { () -> Bool in
            prompt = activePrompt
            return cancelled
        }
        if alreadyCancelled { activePrompt.cancel() }
        defer { condition.withLock { prompt = nil } }
        return try body()
    }

    /// Sleeps until `deadline` or until cancelled, whichever is first; true when cancelled.
    func sleep(until deadline: Date) -> Bool {
        condition.withLock {
            while !cancelled, Date() < deadline { _ = condition.wait(until: deadline) }
            return cancelled
        }
    }

    /// The reader thread hands over the answer to a `select-account` status (nil: the user cancelled).
    func deliverSelection(_ index: Int?) {
        condition.withLock {
            selection = .some(index)
            condition.broadcast()
        }
    }

    enum SelectionOutcome: Equatable { case chosen(Int?), cancelled, timedOut }

    func awaitSelection(until deadline: Date) -> SelectionOutcome {
        condition.withLock {
            selection = nil
            while selection == nil, !cancelled, Date() < deadline { _ = condition.wait(until: deadline) }
            if cancelled { return .cancelled }
            guard let answer = selection else { return .timedOut }
            return .chosen(answer)
        }
    }
}
