import FIDO
import Synchronization
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keys that refused the PIN after too many wrong attempts in a row (CTAP2_ERR_PIN_AUTH_BLOCKED) and have not been
/// plugged in again since: they refuse every PIN until that power cycle, so asking for one would only fail.
/// libfido2 1.12 does not read getPINRetries' powerCycleState (nor does Chromium), so the key's answer is remembered,
/// by plugging (`Device.plugging`), for the life of the host.
final class PowerCycleLocks: Sendable {
    /// The host's one record: one process serves one browser, which sees the one set of keys plugged in.
    static let shared = PowerCycleLocks()

    private let pluggings = Mutex<Set<String>>([])

    func remember(_ device: Device) { _ = pluggings.withLock { $0.insert(device.plugging) } }
    func forget(_ device: Device) { _ = pluggings.withLock { $0.remove(device.plugging) } }
    func needsPowerCycle(_ device: Device) -> Bool { pluggings.withLock { $0.contains(device.plugging) } }
}

extension UserVerificationRunner {
    /// The attempts the key's PIN has left, or the error for a PIN that cannot be used now: blocked for good
    /// (0 attempts left) or until the key is reinserted. As Chromium (AuthTokenRequester::OnGetPINRetries, a hard
    /// PIN block when getPINRetries says 0), no PIN dialog is shown then: the page gets NotAllowedError, and the
    /// extension's window the reason.
    func usablePINAttempts(on device: Device) throws(WebAuthnError) -> Int? {
        let attempts = try? device.pinRetries()
        let lock: Int32
        if attempts == 0 {
            log.info(
                "the key's PIN is blocked (0 attempts left): not asking for it; the key must be reset",
                request: controller.id)
            lock = FIDOError.pinBlocked
        } else if PowerCycleLocks.shared.needsPowerCycle(device) {
            log.info(
                "the key refused its PIN after too many wrong attempts in a row and was not reinserted since: not asking for it",
                request: controller.id)
            lock = FIDOError.pinAuthBlocked
        } else {
            return attempts
        }
        throw ErrorMapping.webAuthnError(
            for: FIDOError(code: lock, function: "fido_dev_get_retry_count"), cancelled: false, timedOut: false)
    }

    /// The method to try, once the key's built-in UV attempts are read. As Chromium (AuthTokenRequester::
    /// OnGetUVRetries), built-in UV with no attempts left is not tried: a key with a PIN falls back to it, one
    /// without fails once it was touched, so the page learns nothing of the key before the user acted.
    func methodAfterReadingUVRetries(
        _ method: UserVerificationMethod, on device: Device,
        deadline: Deadline
    ) throws(WebAuthnError) -> UserVerificationMethod {
        guard method == .builtIn, (try? device.uvRetries()) == 0 else { return method }
        if device.hasPIN {
            logFallbackToPIN()
            return .pin
        }
        log.info(
            "built-in user verification blocked (0 attempts left) and the key has no PIN: refusing once it is touched",
            request: controller.id)
        try controller.collectTouch(on: device, replies: replies, deadline: deadline)
        throw ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.uvBlocked, function: "fido_dev_get_uv_retry_count"), cancelled: false,
            timedOut: false)
    }

    func logFallbackToPIN() {
        log.info("built-in user verification blocked; falling back to the PIN", request: controller.id)
    }

    /// Keeps the record of keys waiting for a power cycle true after the key answered a PIN.
    func noteAnswer(to method: UserVerificationMethod, on device: Device, error: FIDOError?) {
        guard method == .pin else { return }
        if error?.code == FIDOError.pinAuthBlocked {
            PowerCycleLocks.shared.remember(device)
        } else if error == nil {
            PowerCycleLocks.shared.forget(device)
        }
    }
}
