import FIDO
import Testing
import WebAuthn

@testable import BridgeHost

/// When a failed attempt starts over on another key and when it ends the request (docs/keys.md, "Plugging").
struct KeyWatchTests {
    static let refused = ErrorMapping.webAuthnError(
        for: FIDOError(code: FIDOError.keepaliveCancel, function: "fido_dev_make_cred"), cancelled: false,
        timedOut: false)

    static func outcome(
        _ error: WebAuthnError = KeyWatch.removed, cancelled: Bool = false, joined: Bool = false,
        present: Bool = false, pinAsked: Bool = false
    ) -> KeyWatch.Outcome {
        KeyWatch.outcome(
            after: error, key: "k", cancelled: cancelled, joined: joined, present: present, pinAsked: pinAsked)
    }

    @Test func aKeyPulledOutWhileWaitingForItsTouchIsWaitedForAgain() {
        #expect(Self.outcome() == .startOver("k was removed while it waited for its touch"))
    }

    @Test func aKeyPulledOutOnceItsPINWasAskedForEndsTheRequest() {
        #expect(Self.outcome(pinAsked: true) == .failRemovedDuringPIN)
        #expect(
            Self.outcome(ErrorMapping.aborted, pinAsked: true) == .failRemovedDuringPIN,
            "the closed dialog's error is replaced")
    }

    @Test func aKeyThatJoinedMakesTheCeremonyStartOverWhateverTheCancelledKeySaid() {
        #expect(
            Self.outcome(Self.refused, joined: true, present: true)
                == .startOver("another key was plugged in while k waited for its touch"))
    }

    @Test func thePagesAbortEndsEverything() {
        #expect(Self.outcome(ErrorMapping.aborted, cancelled: true) == .fail)
        #expect(Self.outcome(ErrorMapping.aborted, cancelled: true, joined: true) == .fail)
    }

    @Test func aFailureOfAKeyStillPluggedInIsTheRequestsEnd() {
        #expect(Self.outcome(Self.refused, present: true) == .fail)
    }

    @Test func aKeyPulledOutAfterAFailureOfItsOwnDoesNotHideThatFailure() {
        // e.g. the account chooser declined, then the key pulled out: the decline stands.
        let declined = WebAuthnError(name: .notAllowed, message: "No account was chosen.")
        #expect(Self.outcome(declined) == .fail)
    }
}
