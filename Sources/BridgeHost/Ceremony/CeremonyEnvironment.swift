import FIDO
import Prompts
import WebAuthn

/// Everything a ceremony needs from the host, built once per process.
struct CeremonyEnvironment: Sendable {
    let log: HostLog
    let replies: ReplyChannel
    let rpIDValidator: RelyingPartyIDValidator
    let deviceSelector: DeviceSelector
    let prompt: (any PINPrompt)?

    func verifier(controller: CeremonyController, rpID: String, origin: String) -> UserVerificationRunner {
        UserVerificationRunner(
            prompt: prompt, controller: controller, replies: replies, log: log, rpID: rpID, origin: origin)
    }
}
