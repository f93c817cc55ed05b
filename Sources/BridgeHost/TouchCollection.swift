import FIDO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WebAuthn

extension CeremonyController {
    /// Waits for the user to touch `device` before a refusal is reported, so a page never learns what the key
    /// holds (no credential, an excluded one) without the user having acted, as browsers behave. `statuses` are
    /// the ones a ceremony that goes on would have shown at this point (`UserVerificationRunner.waits(for:)`).
    func collectTouch(on device: Device, replies: ReplyChannel, deadline: Date,
                      statuses: [CeremonyStatus] = UserVerificationRunner.waits(for: .none)) throws(WebAuthnError) {
        let notice = DeferredStatus(statuses, for: id, on: replies)
        defer { notice.withdraw() }
        let clockDeadline = ContinuousClock.now + .milliseconds(Int(max(0, deadline.timeIntervalSinceNow) * 1000))
        do {
            _ = try using(device) { () throws(FIDOError) in
                try TouchSelection.waitForTouch(on: [device], deadline: clockDeadline, isCancelled: { self.isCancelled })
            }
        } catch {
            throw ErrorMapping.webAuthnError(for: error, cancelled: isCancelled, timedOut: Date() >= deadline)
        }
    }
}
