import FIDO
import Threading
import WebAuthn

extension CeremonyController {
    /// Waits for the user to touch `device` before a refusal is reported, so a page never learns what the key
    /// holds (no credential, an excluded one) without the user having acted, as browsers behave. `statuses` are
    /// the ones a ceremony that goes on would have shown at this point (`UserVerificationRunner.waits(for:)`).
    func collectTouch(
        on device: Device, replies: ReplyChannel, deadline: Deadline,
        statuses: [CeremonyStatus] = UserVerificationRunner.waits(for: .none)
    ) throws(WebAuthnError) {
        let notice = DeferredStatus(statuses, for: id, on: replies)
        defer { notice.withdraw() }
        do {
            _ = try using(device) { () throws(FIDOError) in
                try TouchSelection.waitForTouch(on: [device], deadline: deadline, isCancelled: { self.isCancelled })
            }
        } catch {
            throw ErrorMapping.webAuthnError(for: error, cancelled: isCancelled, timedOut: deadline.isPast)
        }
    }
}
