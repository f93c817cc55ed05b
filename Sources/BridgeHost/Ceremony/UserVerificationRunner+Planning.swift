import FIDO
import Prompts
import Secrets
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension UserVerificationRunner {
    /// Decides how this ceremony verifies the user. When the site requires UV and the key could use a PIN
    /// but has none, offers to set one first, as Chromium does; the new PIN then verifies this ceremony.
    func plan(
        _ requirement: WebAuthn.UserVerificationRequirement, device: Device,
        ceremony: UserVerificationPolicy.Ceremony, deadline: Deadline
    ) throws(WebAuthnError) -> UserVerificationMethod {
        let wish: FIDO.UserVerificationRequirement =
            switch requirement {
            case .required: .required
            case .preferred: .preferred
            case .discouraged: .discouraged
            }
        do throws(UserVerificationPolicyError) {
            return try UserVerificationPolicy.method(for: wish, info: device.info, ceremony: ceremony)
        } catch {
            switch error {
            case .notConfigured(pinSupported: true) where prompt != nil:
                try setUpPIN(on: device, deadline: deadline)
                return .pin
            case .notConfigured(let pinSupported):
                log.info(
                    "user verification required but the key has \(pinSupported ? "no PIN set" : "no PIN or built-in UV")",
                    request: controller.id)
                // As Chromium (an unsatisfiable request is refused after a touch): the page learns nothing of the
                // key until the user has acted.
                try controller.collectTouch(on: device, replies: replies, deadline: deadline)
                throw WebAuthnError(
                    name: .notAllowed,
                    message: pinSupported
                        ? "This site requires user verification, but the security key has no PIN set. Set a PIN first."
                        : "This site requires user verification, which the security key cannot do."
                ).retryable()
            }
        }
    }

    private func setUpPIN(on device: Device, deadline: Deadline) throws(WebAuthnError) {
        guard let prompt else { return }
        try controller.chooseForPIN(device, replies: replies, deadline: deadline)
        let minimum = max(4, device.info.minPINLength)
        replies.status(controller.id, .setPIN)
        log.info(
            "the key has no PIN and the site requires one; asking the user to set a PIN (minimum \(minimum))",
            request: controller.id)
        let request = NewPINRequest(rpID: rpID, origin: origin, minimumLength: minimum)
        // The prompt's own buffer is what libfido2 is handed: no copy of the PIN is ever made.
        let pin: SecretBytes
        do {
            pin = try controller.using(prompt) { () throws(PromptError) -> SecretBytes in try prompt.readNewPIN(request)
            }
        } catch {
            throw promptFailure(error)
        }
        do throws(FIDOError) {
            try device.setPIN(pin)
        } catch {
            log.error("setting the PIN failed: \(error)", request: controller.id)
            throw WebAuthnError(name: .notAllowed, message: "The security key refused the new PIN.")
        }
        log.info("PIN set on the key", request: controller.id)
        pendingPIN.set(pin)
    }
}
