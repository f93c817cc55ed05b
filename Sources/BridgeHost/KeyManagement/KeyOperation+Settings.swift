import FIDO
import Secrets
import WebAuthn

/// `key-reset` (authenticatorReset: a touch on the key, and only soon after it was plugged in) and `key-config`
/// (authenticatorConfig: alwaysUv, the minimum PIN length, a forced PIN change, with the PIN when the key has one).
/// Each answers with the key's facts read again.
extension KeyOperation {
    func reset(_ device: Device) throws(WebAuthnError) -> JSONValue {
        guard device.isFIDO2 else {
            throw WebAuthnError(
                name: .notSupported,
                message: "This key speaks only U2F: it has no FIDO2 reset. Its maker's tool resets it.")
        }
        environment.replies.status(controller.id, .touch)
        device.setTimeout(until: .after(Self.userTimeout))
        do {
            try controller.using(device) { () throws(FIDOError) in try device.reset() }
        } catch  where error.code == FIDOError.notAllowed {
            throw WebAuthnError(
                name: .notAllowed,
                message: "The key takes a reset only in the first 10 seconds after it is plugged in: unplug it, plug "
                    + "it in again, then choose Reset at once. Nothing was deleted.")
        } catch {
            throw ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: false)
        }
        environment.log.info(
            "the key was reset (every passkey, the PIN and fingerprints deleted)", request: controller.id)
        return infoAfterChange(device)
    }

    func configure(_ device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        guard device.isFIDO2, device.supportsConfig else {
            throw WebAuthnError(
                name: .notSupported, message: "This key has no settings to change (authenticatorConfig).")
        }
        switch frame["setting"]?.stringValue {
        case "always-uv":
            guard case .bool(let on)? = frame["value"] else { throw Self.badValue("a boolean") }
            guard device.supportsAlwaysUV else { throw Self.unsupported("always require user verification") }
            try withPINIfSet(on: device) { (device, pin) throws(FIDOError) in _ = try device.setAlwaysUV(on, pin: pin) }
        case "min-pin-length":
            guard let length = frame["value"]?.intValue, (4...63).contains(length) else {
                throw Self.badValue("a whole number from 4 to 63")
            }
            guard device.supportsMinPINLength else { throw Self.unsupported("a minimum PIN length") }
            try withPINIfSet(on: device) { (device, pin) throws(FIDOError) in
                try device.setMinimumPINLength(length, pin: pin)
            }
        case "force-pin-change":
            guard device.supportsMinPINLength, device.hasPIN else { throw Self.unsupported("a forced PIN change") }
            try withPINIfSet(on: device) { (device, pin) throws(FIDOError) in try device.forcePINChange(pin: pin) }
        default:
            throw WebAuthnError(
                name: .typeError,
                message: "\"setting\" must be \"always-uv\", \"min-pin-length\" or \"force-pin-change\".")
        }
        return infoAfterChange(device)
    }

    /// The key's PIN when it has one; a key without one is configured without (the setting needs none then).
    private func withPINIfSet(on device: Device, _ body: (Device, SecretBytes?) throws(FIDOError) -> Void)
        throws(WebAuthnError)
    {
        if device.hasPIN { return try withPIN(on: device) { (device, pin) throws(FIDOError) in try body(device, pin) } }
        do { try body(device, nil) } catch {
            throw error.code == FIDOError.pinPolicyViolation
                ? WebAuthnError(name: .notAllowed, message: "The key refused: a minimum PIN length can only be raised.")
                : ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: false)
        }
    }

    private static func badValue(_ what: String) -> WebAuthnError {
        WebAuthnError(name: .typeError, message: "The setting's \"value\" must be \(what).")
    }

    private static func unsupported(_ what: String) -> WebAuthnError {
        WebAuthnError(name: .notSupported, message: "This key has no setting for \(what).")
    }
}
