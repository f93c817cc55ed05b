import FIDO
import Prompts
import Secrets
import WebAuthn

/// `pin-set` and `pin-change`: the PINs asked through the ceremonies' prompt only (`pin` for the current one,
/// `set-pin` for the new one, asked twice), never carried by a frame.
extension KeyOperation {
    func setPIN(on device: Device) throws(WebAuthnError) -> JSONValue {
        try requireClientPIN(device)
        guard !device.hasPIN else {
            throw WebAuthnError(name: .invalidState, message: "The key has a PIN already: change it instead.")
        }
        let new = try readNewPIN(for: device, reason: "You are creating the PIN of your security key.")
        do { try device.setPIN(new) } catch { throw pinFailure(error, on: device) }
        return infoAfterChange(device)
    }

    func changePIN(on device: Device) throws(WebAuthnError) -> JSONValue {
        try requireClientPIN(device)
        guard device.hasPIN else {
            throw WebAuthnError(name: .invalidState, message: "The key has no PIN yet: create one instead.")
        }
        let retries = try? device.pinRetries()
        environment.replies.pinStatus(controller.id, attemptsLeft: nil)
        let current = try ask { (prompt) throws(PromptError) in
            try prompt.readPIN(PINRequest(rpID: Self.promptSite, origin: Self.promptOrigin, attemptsLeft: retries))
        }
        let new = try readNewPIN(for: device, reason: "You are changing the PIN of your security key.")
        do { try device.changePIN(from: current, to: new) } catch { throw pinFailure(error, on: device) }
        return infoAfterChange(device)
    }

    /// What pinentry names as asking: the page, for the key itself (no site).
    static let promptSite = "your security key"
    static let promptOrigin = "the webauthn-bridge Security keys page"

    private func readNewPIN(for device: Device, reason: String) throws(WebAuthnError) -> SecretBytes {
        environment.replies.status(controller.id, .setPIN)
        return try ask { (prompt) throws(PromptError) in
            try prompt.readNewPIN(
                NewPINRequest(
                    rpID: Self.promptSite, origin: Self.promptOrigin, minimumLength: max(device.info.minPINLength, 4),
                    reason: reason))
        }
    }

    /// One reading of the prompt, which `cancel` (the page's Cancel, the page closing) interrupts.
    private func ask(_ read: (any PINPrompt) throws(PromptError) -> SecretBytes) throws(WebAuthnError) -> SecretBytes {
        guard let prompt = environment.prompt else {
            throw WebAuthnError(
                name: .notAllowed,
                message: "No PIN prompt is available: install pinentry or set WEBAUTHN_BRIDGE_PINENTRY.")
        }
        do {
            return try controller.using(prompt) { () throws(PromptError) -> SecretBytes in try read(prompt) }
        } catch {
            throw verifier.promptFailure(error)
        }
    }

    private func pinFailure(_ error: FIDOError, on device: Device) -> WebAuthnError {
        switch error.code {
        case FIDOError.pinInvalid:
            let left = (try? device.pinRetries()).map { " \($0) attempt\($0 == 1 ? "" : "s") left." } ?? ""
            return WebAuthnError(name: .notAllowed, message: "Wrong current PIN: nothing was changed.\(left)")
        case FIDOError.pinPolicyViolation:
            return WebAuthnError(
                name: .notAllowed,
                message: "The key refused the new PIN (too short, or one it does not allow). Choose another.")
        default:
            return ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: false)
        }
    }

    private func requireClientPIN(_ device: Device) throws(WebAuthnError) {
        guard device.isFIDO2, device.info.supportsClientPIN else {
            throw WebAuthnError(name: .notSupported, message: "This key cannot have a PIN.")
        }
    }
}
