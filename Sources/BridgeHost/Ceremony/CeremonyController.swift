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
///
/// While several keys race for the request (`KeyRace`), each key's part runs under a lane of it (`lane(claim:)`):
/// a lane is cancelled on its own (its key lost) or with the ceremony (the page aborted), and it speaks to the
/// user only while its key is the only one or once it has claimed the ceremony. Prompts, the account choice and device time stay the ceremony's.
final class CeremonyController: @unchecked Sendable {
    let id: String
    /// The ceremony a lane runs one key of; nil for the ceremony itself.
    private let ceremony: CeremonyController?
    /// A lane's way to take the ceremony for its key; false when another key took it first.
    private let claimRace: (@Sendable () -> Bool)?
    /// A lane's way to learn that its key is the only one in the race: it then speaks before it claimed.
    private let alone: (@Sendable () -> Bool)?
    private let condition = Condition()
    private var cancelled = false
    private var lanes: [CeremonyController] = []
    private var claimed = false
    private var devices: [ObjectIdentifier: Device] = [:]
    private var prompt: (any PINPrompt)?
    /// How many PIN prompts the ceremony opened: a key pulled out after one ends the request (`KeyWatch`).
    private var prompts = 0
    private var selection: Int??
    /// Between `expectSelection` and the end of `awaitSelection`: a chooser is open and takes one answer.
    private var choosing = false

    /// Time spent inside libfido2 calls (and so in the key or SoftToken), for the benchmark's split.
    private var deviceNanoseconds: Int64 = 0

    init(id: String) {
        self.id = id
        ceremony = nil
        claimRace = nil
        alone = nil
    }

    private init(
        laneOf ceremony: CeremonyController, claim: @escaping @Sendable () -> Bool,
        alone: @escaping @Sendable () -> Bool
    ) {
        id = ceremony.id
        self.ceremony = ceremony
        claimRace = claim
        self.alone = alone
    }

    /// The ceremony itself, for what its lanes share.
    private var root: CeremonyController { ceremony ?? self }

    var deviceTime: Int64 { root.condition.withLock { root.deviceNanoseconds } }

    var isCancelled: Bool { condition.withLock { cancelled } }

    /// A lane for one key of a race; `claim` takes the ceremony for it (true: this key won, or had won); `alone`
    /// says whether its key is the only one racing.
    func lane(claim: @escaping @Sendable () -> Bool, alone: @escaping @Sendable () -> Bool) -> CeremonyController {
        let lane = CeremonyController(laneOf: self, claim: claim, alone: alone)
        let cancelledAlready = condition.withLock { () -> Bool in
            lanes.append(lane)
            return cancelled
        }
        if cancelledAlready { lane.cancel() }
        return lane
    }

    /// The race is over (its lanes won, failed or were cancelled): the ceremony lets go of them. Each lane holds
    /// the ceremony, so keeping them would keep every request's controllers alive for as long as the host runs.
    func releaseLanes() {
        condition.withLock { lanes.removeAll() }
    }

    /// Whether this lane's key has the ceremony (the ceremony itself always has).
    var hasClaimed: Bool { claimRace == nil || condition.withLock { claimed } }

    /// Whether statuses may come from here: from the ceremony, from a lane once it won or while its key is the
    /// only one (the user is then asked to touch that key, not to choose one).
    var speaks: Bool { hasClaimed || alone?() == true }

    /// Takes the ceremony for this lane's key, once the user acted on it (it answered after a touch, or was
    /// touched to be chosen for its PIN): the other keys are cancelled. False when another key won first. The
    /// ceremony itself (one key) has nothing to claim.
    func claim() -> Bool {
        guard let claimRace, !hasClaimed else { return true }
        guard claimRace() else { return false }
        condition.withLock { claimed = true }
        return true
    }

    /// Aborts whatever the ceremony waits on: the key (CTAPHID_CANCEL), a PIN prompt, a selection, a sleep.
    ///
    /// A key ignores CTAPHID_CANCEL while it has no request pending, and the request may still be on its
    /// way (libfido2 sends it after the device was registered here), so the cancel is repeated a few times
    /// for as long as a key is registered.
    func cancel() {
        let (activePrompt, ownLanes) = condition.withLock { () -> ((any PINPrompt)?, [CeremonyController]) in
            cancelled = true
            condition.broadcast()
            return (prompt, lanes)
        }
        activePrompt?.cancel()
        for lane in ownLanes { lane.cancel() }
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
            condition.withLock { _ = devices.removeValue(forKey: ObjectIdentifier(device)) }
            root.addDeviceTime(ContinuousClock.now - started)
        }
        return try body()
    }

    private func addDeviceTime(_ elapsed: Duration) {
        condition.withLock { deviceNanoseconds += Self.nanoseconds(elapsed) }
    }

    func using<T, E: Error>(_ activePrompt: any PINPrompt, _ body: () throws(E) -> T) throws(E) -> T {
        if let ceremony { return try ceremony.using(activePrompt, body) }
        let alreadyCancelled = condition.withLock { () -> Bool in
            prompt = activePrompt
            prompts += 1
            return cancelled
        }
        if alreadyCancelled { activePrompt.cancel() }
        defer { condition.withLock { prompt = nil } }
        return try body()
    }

    var promptsOpened: Int { root.condition.withLock { root.prompts } }

    /// Closes the PIN prompt that is open, if one is, without cancelling the ceremony: its key was pulled out.
    /// True when one was open.
    func dismissPrompt() -> Bool {
        if let ceremony { return ceremony.dismissPrompt() }
        let open = condition.withLock { prompt }
        open?.cancel()
        return open != nil
    }

    /// Runs `body` (a libfido2 call not tied to one registered key, such as opening keys) counting its time
    /// as device time.
    func timed<T>(_ body: () -> T) -> T {
        let started = ContinuousClock.now
        let value = body()
        root.addDeviceTime(ContinuousClock.now - started)
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
        if let ceremony { return ceremony.deliverSelection(index) }
        return condition.withLock {
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
        if let ceremony { return ceremony.expectSelection() }
        condition.withLock {
            selection = nil
            choosing = true
        }
    }

    func awaitSelection(until deadline: Deadline) -> SelectionOutcome {
        if let ceremony { return ceremony.awaitSelection(until: deadline) }
        return condition.withLock {
            defer { choosing = false }
            while selection == nil, !cancelled, !deadline.isPast { _ = condition.wait(until: deadline) }
            if cancelled { return .cancelled }
            guard let answer = selection else { return .timedOut }
            return .chosen(answer)
        }
    }
}
