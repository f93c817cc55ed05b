import FIDO
import Prompts
import Threading
import WebAuthn

/// Everything a ceremony needs from the host, built once per process.
struct CeremonyEnvironment: Sendable {
    let log: HostLog
    let replies: ReplyChannel
    let rpIDValidator: RelyingPartyIDValidator
    let deviceSelector: DeviceSelector
    let prompt: (any PINPrompt)?

    /// Runs `attempt` (a ceremony's steps on one key) on the keys present (`DeviceSelector.dispatch`): each key
    /// with the environment whose statuses go through its lane's channel, and its lane's controller.
    func onEveryKey<T: Sendable>(
        of controller: CeremonyController, deadline: Deadline,
        _ attempt: @escaping @Sendable (Device, CeremonyEnvironment, CeremonyController) throws(WebAuthnError) -> T
    ) throws(WebAuthnError) -> T {
        try deviceSelector.dispatch(for: controller, replies: replies, deadline: deadline) {
            (device, lane) throws(WebAuthnError) in
            let environment = CeremonyEnvironment(
                log: log, replies: lane.replies, rpIDValidator: rpIDValidator, deviceSelector: deviceSelector,
                prompt: prompt)
            return try attempt(device, environment, lane.controller)
        }
    }

    func verifier(controller: CeremonyController, rpID: String, origin: String) -> UserVerificationRunner {
        UserVerificationRunner(
            prompt: prompt, controller: controller, replies: replies, log: log, rpID: rpID, origin: origin)
    }
}
