import FIDO
import Threading
import WebAuthn

extension CeremonyController {
    /// Waits for the user to touch `device` before a refusal is reported, so a page never learns what the key
    /// holds (no credential, an excluded one) without the user having acted, as browsers behave. `statuses` are
    /// the ones a ceremony that goes on would have shown at this point (`UserVerificationRunner.waits(for:)`).
    /// Among several keys the touch claims the ceremony for this one (`claim()`), as Chromium ends the request
    /// with the error of the key the user touched.
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
        guard claim() else { throw ErrorMapping.lostRace }
    }

    /// Before a PIN is asked for (or set) on one of several keys, the user chooses the key by touching it, as
    /// Chromium does (touch-to-select, then the PIN of the key touched): no PIN dialog opens for a key the user
    /// did not pick. The only key needs no such touch (Chromium skips it for a lone authenticator) but takes the
    /// ceremony all the same, so no key plugged in during its PIN joins.
    func chooseForPIN(_ device: Device, replies: ReplyChannel, deadline: Deadline) throws(WebAuthnError) {
        if hasClaimed { return }
        if speaks {
            guard claim() else { throw ErrorMapping.lostRace }
            return
        }
        try collectTouch(on: device, replies: replies, deadline: deadline, statuses: [])
    }
}
