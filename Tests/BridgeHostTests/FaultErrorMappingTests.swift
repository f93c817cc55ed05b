import FIDO
import Testing
import WebAuthn

@testable import BridgeHost

/// The fault matrix's key answers (docs/robustness.md): libfido2's FIDO_ERR_RX is a timeout only once the
/// deadline has passed; before it, the key's answer was unreadable, and the log and the user are told so.
struct FaultErrorMappingTests {
    @Test func anUnreadableAnswerBeforeTheDeadlineIsNotCalledATimeout() {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.receiveFailed, function: "fido_dev_make_cred"), cancelled: false,
            timedOut: false)
        #expect(error.name == .notAllowed)
        #expect(error.message == "The security key's answer could not be read (FIDO_ERR_RX).")
    }

    @Test func noAnswerByTheDeadlineIsATimeout() {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.receiveFailed, function: "fido_dev_make_cred"), cancelled: false,
            timedOut: true)
        #expect(error == ErrorMapping.timeout)
    }

    @Test func aFullKeyTellsTheUserToMakeRoom() {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.keyStoreFull, function: "fido_dev_make_cred"), cancelled: false,
            timedOut: false)
        #expect(error.name == .notAllowed)
        #expect(error.message.contains("no room for another passkey"))
        #expect(ErrorMapping.pageMessage(for: error) == ErrorMapping.PageText.notAllowed)
    }
}
