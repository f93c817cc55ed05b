import FIDO
import Synchronization
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Follows the keys once a key has the ceremony (`KeyRace` follows them until then), as Chromium keeps discovering
/// keys for the whole request (device/fido/fido_request_handler_base.cc: AuthenticatorAdded, AuthenticatorRemoved):
/// - the chosen key pulled out while the request waits for its touch: the ceremony starts over from finding a key
///   ("insert-key"), until its deadline;
/// - pulled out once its PIN was asked for: the PIN prompt closes and the request ends with NotAllowedError, as
///   Chromium ends it with kAuthenticatorRemovedDuringPINEntry (device/fido/make_credential_request_handler.cc and
///   get_assertion_request_handler.cc, `AuthenticatorRemoved`);
/// - another key plugged in while the chosen one waits for its touch and no PIN was asked for: the chosen key's
///   request is cancelled and the ceremony starts over, so every key blinks and the one touched first wins
///   (Chromium dispatches the request to a key that appears while it is in kWaitingForTouch, and to none after a
///   key was selected for its PIN);
/// - another key plugged in once the chosen key answered (`answered()`: the user chooses among its accounts): not
///   asked, the choice stands (Chromium's handler is then kFinished and dispatches to no key; its account chooser
///   comes after).
///
/// The watch runs on a thread of its own, polling the provider as the wait for an inserted key does
/// (`DeviceSelector.pollInterval`); listing keys opens none, so it does not disturb the libfido2 thread's request.
final class KeyWatch: @unchecked Sendable {
    /// What to do with a failed attempt of the ceremony.
    enum Outcome: Equatable {
        case fail
        /// The key was pulled out after its PIN was asked for.
        case failRemovedDuringPIN
        /// Find a key again and run the ceremony on it (the reason, for the log).
        case startOver(String)
    }

    private struct State {
        var deadline: Deadline?
        var chosen: Device?
        /// The keys listed when `chosen` was chosen: any other one is a key plugged in since.
        var known: Set<String> = []
        var promptsAtChoice = 0
        var joined = false
        /// The chosen key answered: no key plugged in from now on is asked.
        var answered = false
        var ended = false
        /// The watch's thread runs (from `start()` until it saw `ended`).
        var running = false
    }

    private let controller: CeremonyController
    private let provider: any DeviceProvider
    private let log: HostLog
    private let pollInterval: Duration
    private let condition = Condition()
    private var state = State()

    /// The error a ceremony fails with when its key was pulled out (`Device.awaitingTheUser`).
    static let removed = ErrorMapping.webAuthnError(
        for: FIDOError(code: FIDOError.deviceRemoved, function: "key watch"), cancelled: false, timedOut: false)

    init(controller: CeremonyController, provider: any DeviceProvider, log: HostLog, pollInterval: Duration) {
        self.controller = controller
        self.provider = provider
        self.log = log
        self.pollInterval = pollInterval
    }

    func start() {
        condition.withLock { state.running = true }
        startDetachedThread(name: "key-watch") { [self] in
            while let snapshot = nextLook() {
                if let chosen = snapshot.chosen { look(at: chosen, snapshot) }
            }
            condition.withLock {
                state.running = false
                condition.broadcast()
            }
        }
    }

    func end() {
        condition.withLock {
            state.ended = true
            condition.broadcast()
        }
    }

    /// Waits for the watch's thread to leave its loop after `end()`; false when it still runs at `deadline`.
    func waitUntilStopped(until deadline: Deadline) -> Bool {
        condition.withLock {
            while state.running, !deadline.isPast { _ = condition.wait(until: deadline) }
            return !state.running
        }
    }

    /// The ceremony's deadline: the first attempt's, kept when it starts over.
    func deadline(_ proposed: Deadline) -> Deadline {
        condition.withLock {
            if let deadline = state.deadline { return deadline }
            state.deadline = proposed
            return proposed
        }
    }

    /// The ceremony chose `device` among the keys at `listed`.
    func chose(_ device: Device, listed: Set<String>) {
        let prompts = controller.promptsOpened
        condition.withLock {
            state.chosen = device
            state.known = listed
            state.promptsAtChoice = prompts
            state.joined = false
            state.answered = false
        }
    }

    /// The chosen key answered the request; what follows (the account choice) is the user's, whatever is plugged in.
    func answered() {
        condition.withLock { state.answered = true }
    }

    func outcome(after error: WebAuthnError) -> Outcome {
        let prompts = controller.promptsOpened
        let cancelled = controller.isCancelled
        return condition.withLock {
            defer {
                state.chosen = nil
                state.joined = false
                state.answered = false
            }
            guard let chosen = state.chosen else { return .fail }
            return Self.outcome(
                after: error, key: chosen.location.path, cancelled: cancelled,
                joined: state.joined && !state.answered,
                present: chosen.isPresent, pinAsked: prompts > state.promptsAtChoice)
        }
    }

    /// The rule: a page's abort ends everything; a key that joined while the chosen one waited for its touch makes
    /// the ceremony start over; so does the chosen key pulled out then (the attempt failed on that), unless its PIN
    /// was asked for, which ends the request.
    static func outcome(
        after error: WebAuthnError, key: String, cancelled: Bool, joined: Bool, present: Bool,
        pinAsked: Bool
    ) -> Outcome {
        if cancelled { return .fail }
        if joined { return .startOver("another key was plugged in while \(key) waited for its touch") }
        if present { return .fail }
        if pinAsked { return .failRemovedDuringPIN }
        return error == removed ? .startOver("\(key) was removed while it waited for its touch") : .fail
    }

    /// Waits one poll interval; nil once the watch ended.
    private func nextLook() -> State? {
        condition.withLock {
            let until = Deadline.after(pollInterval)
            while !state.ended, !until.isPast { _ = condition.wait(until: until) }
            return state.ended ? nil : state
        }
    }

    private func look(at chosen: Device, _ snapshot: State) {
        let listed = Set(provider.locations().map(\.path))
        guard chosen.isPresent, listed.contains(chosen.location.path) else {
            // A PIN prompt for a key that is gone waits for nothing: close it now, not when the PIN is typed.
            if controller.dismissPrompt() {
                log.info(
                    "\(chosen.location.path) was removed during PIN entry; the PIN prompt is closed",
                    request: controller.id)
            } else if snapshot.answered, snapshot.known.contains(chosen.location.path) {
                // Its answer was read already: the account choice goes on (told once: the key leaves `known`).
                _ = condition.withLock { state.known.remove(chosen.location.path) }
                log.info(
                    "\(chosen.location.path) was removed after it answered; its answer stands", request: controller.id)
            }
            return
        }
        let plugged = listed.subtracting(snapshot.known)
        if snapshot.answered {
            ignore(plugged, chosen: chosen)
            return
        }
        guard !plugged.isEmpty, controller.promptsOpened == snapshot.promptsAtChoice else {
            return
        }
        if !snapshot.joined {
            condition.withLock { state.joined = true }
            log.info(
                "another key was plugged in while \(chosen.location.path) waits for its touch; every key will be asked",
                request: controller.id)
        }
        // Repeated at every look until the ceremony starts over: a key ignores a cancel while no request is pending.
        chosen.cancel()
    }

    /// Keys plugged in after the chosen key answered: named once in the log, never asked.
    private func ignore(_ plugged: Set<String>, chosen: Device) {
        guard !plugged.isEmpty else { return }
        condition.withLock { state.known.formUnion(plugged) }
        for path in plugged.sorted() {
            log.info(
                "\(path) was plugged in after \(chosen.location.path) answered; it is not asked",
                request: controller.id)
        }
    }
}

/// The watch of the ceremony in progress, found by the selector when the ceremony asks for a key.
final class KeyWatches: Sendable {
    private let watches = Mutex<[String: KeyWatch]>([:])

    subscript(id: String) -> KeyWatch? {
        get { watches.withLock { $0[id] } }
    }

    func set(_ watch: KeyWatch?, for id: String) {
        watches.withLock { $0[id] = watch }
    }
}
