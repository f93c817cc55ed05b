import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One key's part of a ceremony: the controller it is cancelled through and claims the ceremony with, and the
/// channel its statuses go through.
struct CeremonyLane: Sendable {
    let controller: CeremonyController
    let replies: ReplyChannel
}

/// The request sent to every key at once, as Chromium dispatches it to every authenticator it discovers
/// (device/fido/fido_request_handler_base.cc): each key runs the ceremony on a thread of its own, the first key
/// the user acts on claims it (`CeremonyController.claim()`) and the others are cancelled (CTAPHID_CANCEL)
/// and closed. A key that fails before the user acted on it drops out and the others go on, as Chromium ignores
/// such answers; a key plugged in meanwhile joins, one pulled out drops out.
///
/// Runs on the libfido2 thread, which opens keys that join; every key's calls run on that key's thread, whose
/// libfido2 logging is set up as the libfido2 thread's (`FIDOLibrary.attachLoggingToThisThread`).
final class KeyRace<T: Sendable>: @unchecked Sendable {
    typealias Attempt = @Sendable (Device, CeremonyLane) throws(WebAuthnError) -> T

    /// How the race ended: a key's answer (or its error once the user acted on it, the page's abort, the
    /// timeout), or every key gone.
    enum Ending {
        case answered(Result<T, WebAuthnError>)
        case noKeyLeft
    }

    private struct Runner {
        let device: Device
        let controller: CeremonyController
        var running = true
    }

    private let selector: DeviceSelector
    private let ceremony: CeremonyController
    private let replies: ReplyChannel
    private let deadline: Deadline
    private let attempt: Attempt
    private let condition = Condition()
    private var runners: [Runner] = []
    private var winner: Int?
    private var outcome: Result<T, WebAuthnError>?
    /// Keys that failed before the user acted on them, with their errors.
    private var dropped: [(path: String, error: WebAuthnError)] = []
    /// Every key in the port the race knows (racing, dropped, or unusable): any other one has just been plugged in.
    private var known: Set<String> = []
    /// More than one key has raced: the user chooses one by touching it (`select-key`), and a key speaks only once
    /// it won. Until then the only key is the ceremony's key, as if there were no race.
    private var crowded = false

    /// How long the answer waits for the keys that lost to be cancelled and closed: they are in a clean state
    /// before the next request opens them (a key honours CTAPHID_CANCEL within milliseconds).
    static var settleTime: Duration { .seconds(2) }

    /// How long past the deadline a key may still be ending its own wait before the race ends the request.
    static var overrun: Duration { .seconds(2) }

    init(
        selector: DeviceSelector, ceremony: CeremonyController, replies: ReplyChannel, deadline: Deadline,
        attempt: @escaping Attempt
    ) {
        self.selector = selector
        self.ceremony = ceremony
        self.replies = replies
        self.deadline = deadline
        self.attempt = attempt
    }

    /// Runs the ceremony on every key of `devices` (all open; `listed`: the keys in the port) until one wins.
    func run(_ devices: [Device], listed: [DeviceLocation]) -> Ending {
        defer { ceremony.releaseLanes() }
        known = Set(listed.map(\.path))
        if devices.count > 1 { becomeCrowded() }
        for device in devices { start(device) }
        var nextLook = Deadline.after(DeviceSelector.pollInterval)
        while true {
            // Once a key won, its own steps answer the abort and the deadline (as a single key's do), and the race
            // waits for its answer.
            let (settled, allEnded, decided) = condition.withLock { () -> (Result<T, WebAuthnError>?, Bool, Bool) in
                while outcome == nil, runners.contains(where: \.running), !nextLook.isPast,
                    winner != nil || !ceremony.isCancelled
                {
                    _ = condition.wait(until: nextLook)
                }
                return (outcome, !runners.contains(where: \.running), winner != nil)
            }
            if let settled { return .answered(finish(settled)) }
            if !decided, ceremony.isCancelled { return .answered(finish(.failure(ErrorMapping.aborted))) }
            // Each key's own wait ends at the deadline (libfido2's timeout, the touch poll); the race ends it itself only
            // for a key that outlives it.
            if !decided, Deadline(deadline.instant + Self.overrun).isPast {
                return .answered(finish(.failure(ErrorMapping.timeout)))
            }
            let present = selector.provider.locations()
            if allEnded, !joinPlugged(present) {
                // Every key dropped out. One still in the port answers as it would alone; with none, wait for one.
                let paths = Set(present.map(\.path))
                guard let first = condition.withLock({ dropped.first { paths.contains($0.path) } }) else {
                    return .noKeyLeft
                }
                return .answered(.failure(first.error))
            }
            if !allEnded { _ = joinPlugged(present) }
            nextLook = .after(DeviceSelector.pollInterval)
        }
    }

    /// Opens the keys plugged in since the last look and starts them on the request (no key joins once one won);
    /// true when one joined. Keys pulled out are forgotten, so one plugged in again joins anew.
    private func joinPlugged(_ present: [DeviceLocation]) -> Bool {
        let paths = Set(present.map(\.path))
        let plugged = condition.withLock { () -> [DeviceLocation] in
            known.formIntersection(paths)
            guard winner == nil else { return [] }
            let new = present.filter { !known.contains($0.path) }
            known.formUnion(new.map(\.path))
            return new
        }
        guard !plugged.isEmpty else { return false }
        let (opened, _) = ceremony.timed { selector.openAll(plugged, request: ceremony.id) }
        for device in opened {
            selector.log.info(
                "\(device.location.path) was plugged in; it joins the request", request: ceremony.id)
            start(device)
        }
        return !opened.isEmpty
    }

    /// From now on the user chooses a key by touching it.
    private func becomeCrowded() {
        let already = condition.withLock { () -> Bool in
            defer { crowded = true }
            return crowded
        }
        guard !already else { return }
        replies.status(ceremony.id, .selectKey)
    }

    private func start(_ device: Device) {
        let index = condition.withLock { runners.count }
        if index > 0 { becomeCrowded() }
        // Weak: the race holds its lanes (runners), so a lane holding the race would keep both alive for good.
        let controller = ceremony.lane(
            claim: { [weak self] in self?.claim(index) ?? false },
            alone: { [weak self] in self.map { race in race.condition.withLock { !race.crowded } } ?? false })
        let lane = CeremonyLane(controller: controller, replies: replies.lane(speaking: { controller.speaks }))
        condition.withLock { runners.append(Runner(device: device, controller: controller)) }
        let id = ceremony.id
        startDetachedThread(name: "libfido2-key") { [self, attempt] in
            FIDOLibrary.attachLoggingToThisThread()
            HostLog.serving(id) {
                let result: Result<T, WebAuthnError>
                do throws(WebAuthnError) { result = .success(try attempt(device, lane)) } catch {
                    result = .failure(error)
                }
                device.close()
                ended(index, result)
            }
        }
    }

    /// The key of lane `index` takes the ceremony, unless another did first; the others are cancelled.
    private func claim(_ index: Int) -> Bool {
        let others = condition.withLock { () -> [Runner]? in
            if let winner { return winner == index ? [] : nil }
            winner = index
            return runners.indices.filter { $0 != index }.map { runners[$0] }
        }
        guard let others else { return false }
        let device = condition.withLock { runners[index].device }
        selector.log.info("\(device.location.path) was chosen; the other keys are cancelled", request: ceremony.id)
        selector.watches[ceremony.id]?.chose(device, listed: condition.withLock { known })
        for other in others { other.controller.cancel() }
        return true
    }

    private func ended(_ index: Int, _ result: Result<T, WebAuthnError>) {
        condition.withLock {
            runners[index].running = false
            defer { condition.broadcast() }
            if winner == index {
                outcome = result
                return
            }
            guard winner == nil else { return }
            switch result {
            case .success:
                winner = index
                outcome = result
            case .failure(let error):
                let device = runners[index].device
                dropped.append((device.location.path, error))
                if !runners[index].controller.isCancelled {
                    selector.log.info(
                        device.isPresent
                            ? "\(device.location.path) failed before it was touched (\(error.message)); it drops out"
                            : "\(device.location.path) was removed while it waited for its touch; it drops out",
                        request: ceremony.id)
                }
            }
        }
    }

    /// The race's answer, once every other key was cancelled and has let go of its device (within `settleTime`).
    private func finish(_ result: Result<T, WebAuthnError>) -> Result<T, WebAuthnError> {
        let lanes = condition.withLock { runners.enumerated().filter { $0.offset != winner }.map(\.element.controller) }
        for lane in lanes { lane.cancel() }
        let settled = Deadline.after(Self.settleTime)
        let stillRunning = condition.withLock { () -> Int in
            while runners.contains(where: \.running), !settled.isPast { _ = condition.wait(until: settled) }
            return runners.filter(\.running).count
        }
        if stillRunning > 0 {
            selector.log.warn(
                "\(stillRunning) key(s) still busy after the answer; they are closed when they let go",
                request: ceremony.id)
        }
        return result
    }
}
