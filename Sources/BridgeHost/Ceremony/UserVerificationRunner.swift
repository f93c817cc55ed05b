import FIDO
import Prompts
import Secrets
import Synchronization
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries out the user-verification plan for one key operation: built-in UV first, the PIN when the
/// plan (or a blocked built-in UV) calls for it, re-asking after a wrong PIN with the attempts left, and never
/// asking for a PIN or built-in UV the key has blocked (+Locks).
struct UserVerificationRunner {
    let prompt: (any PINPrompt)?
    let controller: CeremonyController
    let replies: ReplyChannel
    let log: HostLog
    let rpID: String
    let origin: String
    /// A PIN the user just chose while setting one up: used once, without asking again.
    let pendingPIN = PendingPIN()

    /// Runs `operation` (a makeCredential or getAssertion on `device`) with the PIN or UV it needs. `announcing`:
    /// the statuses of the wait on the key (`waits(for:)` unless the operation waits for no touch).
    func run<T>(
        on device: Device, method: UserVerificationMethod, deadline: Deadline, announcing: [CeremonyStatus]? = nil,
        _ operation: (_ pin: SecretBytes?, _ builtInUV: Bool) throws(FIDOError) -> T
    ) throws(WebAuthnError) -> T {
        var method = try methodAfterReadingUVRetries(method, on: device, deadline: deadline)
        var afterWrongPIN: Int?  // the attempts the key has left once a PIN was refused
        while true {
            let pin: SecretBytes? =
                method == .pin ? try askForPIN(device: device, afterWrongPIN: afterWrongPIN, deadline: deadline) : nil
            let notice = DeferredStatus(announcing ?? Self.waits(for: method), for: controller.id, on: replies)
            defer { notice.withdraw() }
            device.setTimeout(until: deadline)
            let started = ContinuousClock.now
            do {
                let answer = try controller.using(device) { () throws(FIDOError) -> T in
                    // Checked after registering the key, so a cancel cannot slip in between unnoticed.
                    if controller.isCancelled {
                        throw FIDOError(code: FIDOError.keepaliveCancel, function: "cancelled before the request")
                    }
                    return try operation(pin, method == .builtIn)
                }
                log.info(
                    "phase key-answer: in \(RequestLoop.milliseconds(since: started)) ms (touch\(method == .none ? "" : " and verification") included)",
                    request: controller.id)
                noteAnswer(to: method, on: device, error: nil)
                return answer
            } catch {
                let cancelled = controller.isCancelled
                let timedOut = deadline.isPast
                if cancelled || timedOut { device.cancel() }
                noteAnswer(to: method, on: device, error: error)
                switch error.code {
                case FIDOError.pinInvalid where method == .pin && !cancelled && !timedOut:
                    let left = (try? device.pinRetries()) ?? 0
                    log.info("wrong PIN entered; \(left) attempts left", request: controller.id)
                    afterWrongPIN = left
                case FIDOError.uvBlocked where method == .builtIn && device.hasPIN:
                    try claimAfterFingerprint()
                    logFallbackToPIN()
                    method = .pin
                case FIDOError.uvInvalid where method == .builtIn:
                    try claimAfterFingerprint()
                    log.info("built-in user verification failed; asking again", request: controller.id)
                default:
                    log.info("\(error)", request: controller.id)
                    // The key answered after the user acted on it: among several keys, its answer is the ceremony's.
                    if ErrorMapping.afterUserAction.contains(error.code), !controller.claim() {
                        throw ErrorMapping.lostRace
                    }
                    throw ErrorMapping.webAuthnError(for: error, cancelled: cancelled, timedOut: timedOut)
                }
            }
        }
    }

    /// A finger on the key's sensor chooses that key among several, recognised or not, as in Chromium
    /// (`AuthTokenRequester::OnGetUVToken` selects the authenticator before it retries UV or falls back to the PIN):
    /// the other keys are cancelled, and the retry or the PIN dialog that follows is this key's, with no touch to
    /// choose it first.
    private func claimAfterFingerprint() throws(WebAuthnError) {
        guard controller.claim() else { throw ErrorMapping.lostRace }
    }

    /// The statuses that announce the wait on the key once `method` is under way: built-in UV, then the touch.
    /// Status codes only: the extension owns the sentences the user reads.
    static func waits(for method: UserVerificationMethod) -> [CeremonyStatus] {
        method == .builtIn ? [.uv, .touch] : [.touch]
    }

    /// The PIN, from the prompt (or the one just chosen). `afterWrongPIN`: the attempts left after a refused PIN,
    /// which the status frame carries as data (the extension words it) and the pinentry dialog shows in the
    /// host's own words.
    private func askForPIN(device: Device, afterWrongPIN: Int?, deadline: Deadline) throws(WebAuthnError)
        -> SecretBytes
    {
        if afterWrongPIN == nil, let pin = pendingPIN.take() { return pin }
        try controller.chooseForPIN(device, replies: replies, deadline: deadline)
        let attempts = try usablePINAttempts(on: device)
        guard let prompt else {
            log.error(
                "this request needs the key's PIN but no PIN prompt is available (no pinentry program, no terminal)",
                request: controller.id)
            throw WebAuthnError(
                name: .notAllowed,
                message:
                    "The security key needs its PIN, but no PIN prompt is available. Install pinentry or set WEBAUTHN_BRIDGE_PINENTRY."
            )
        }
        replies.pinStatus(controller.id, attemptsLeft: afterWrongPIN)
        let retryMessage = afterWrongPIN.map { "Wrong PIN. \($0) attempt\($0 == 1 ? "" : "s") left." }
        let request = PINRequest(rpID: rpID, origin: origin, attemptsLeft: attempts, retryMessage: retryMessage)
        let started = ContinuousClock.now
        do {
            // The prompt's own buffer is what libfido2 is handed: no copy of the PIN is ever made.
            let secret = try controller.using(prompt) { () throws(PromptError) -> SecretBytes in
                try prompt.readPIN(request)
            }
            log.info("phase pin-entry: in \(RequestLoop.milliseconds(since: started)) ms", request: controller.id)
            return secret
        } catch {
            throw promptFailure(error)
        }
    }

    func promptFailure(_ error: PromptError) -> WebAuthnError {
        if case .cancelled = error {
            return controller.isCancelled
                ? ErrorMapping.aborted : WebAuthnError(name: .notAllowed, message: "PIN entry was cancelled.")
        }
        // PromptError says what failed: "PIN prompt failed: …", "no PIN prompt available: …".
        log.error("\(error)", request: controller.id)
        return WebAuthnError(name: .notAllowed, message: "The PIN prompt could not be shown.")
    }
}

/// Holds at most one PIN between set-up and first use.
final class PendingPIN: @unchecked Sendable {
    private let pin = Mutex<SecretBytes?>(nil)
    func set(_ value: SecretBytes) { pin.withLock { $0 = value } }
    func take() -> SecretBytes? {
        pin.withLock { pin in
            defer { pin = nil }
            return pin
        }
    }
}
