import FIDO
import WebAuthn

/// libfido2/CTAP outcomes → the DOMException a browser would raise (docs/errors.md has the table), and what
/// of a failure the page is told.
///
/// Browsers deliberately tell pages little: Chromium collapses most failures into NotAllowedError with one
/// fixed text, so a page cannot learn whether a key holds a credential, has a PIN, or is locked. The precise
/// reason (`WebAuthnError.message`) goes to the host log and, as an error frame's `detail`, to the extension's
/// own notice for the user — never to the page.
enum ErrorMapping {
    static func webAuthnError(for error: FIDOError, cancelled: Bool, timedOut: Bool) -> WebAuthnError {
        if cancelled { return aborted }
        if timedOut { return timeout }
        let mapped = pageError(for: error)
        return offersRetry.contains(error.code) ? mapped.retryable() : mapped
    }

    /// The key's answers after which Chromium's dialog offers "Try again" (its error sheets whose accept button
    /// calls `StartOver`, chrome/browser/ui/webauthn/sheet_models.cc; which failure shows which sheet:
    /// `ChromeAuthenticatorRequestDelegate::DoesBlockRequestOnFailure`): no credential for the site
    /// (kKeyNotRegistered), an excluded one (kKeyAlreadyRegistered), a soft or hard PIN block, a key pulled out
    /// during the PIN, a missing capability (no PIN for required UV, no common algorithm), a full key, a refusal
    /// (kUserConsentDenied). A timeout (its sheet has only Close) and failures Chromium answers at once do not.
    static let offersRetry: Set<Int32> = [
        FIDOError.credentialExcluded, FIDOError.noCredentials, FIDOError.pinBlocked, FIDOError.pinAuthBlocked,
        FIDOError.pinRequired, FIDOError.pinNotSet, FIDOError.uvBlocked, FIDOError.deviceRemoved,
        FIDOError.unsupportedAlgorithm, FIDOError.keyStoreFull, FIDOError.operationDenied,
    ]

    private static func pageError(for error: FIDOError) -> WebAuthnError {
        switch error.code {
        case FIDOError.credentialExcluded:
            return WebAuthnError(
                name: .invalidState,
                message: "The security key already holds a credential registered with this site.")
        case FIDOError.unsupportedAlgorithm:
            // Chromium: kNoCommonAlgorithms (fido_device_authenticator.cc), NotAllowedError like the key's other refusals.
            return WebAuthnError(
                name: .notAllowed,
                message: "The security key supports none of the requested algorithms (FIDO_ERR_UNSUPPORTED_ALGORITHM).")
        case FIDOError.unsupportedOption:
            // Chromium turns the key's refusal into NotAllowedError, like any failure of the only key.
            return WebAuthnError(
                name: .notAllowed, message: "The security key does not support an option this request requires.")
        case FIDOError.pinBlocked:
            return WebAuthnError(
                name: .notAllowed,
                message: "The security key's PIN is blocked after too many wrong attempts; the key must be reset.")
        case FIDOError.pinAuthBlocked:
            return WebAuthnError(
                name: .notAllowed,
                message: "Too many wrong PINs in a row: remove and reinsert the security key, then try again.")
        case FIDOError.pinRequired, FIDOError.pinNotSet:
            return WebAuthnError(name: .notAllowed, message: "The security key requires a PIN for this request.")
        case FIDOError.uvBlocked:
            return WebAuthnError(
                name: .notAllowed, message: "The security key's built-in user verification is blocked.")
        case FIDOError.noCredentials:
            return noCredential
        case FIDOError.deviceRemoved:
            return WebAuthnError(name: .notAllowed, message: "The security key was removed.")
        case FIDOError.actionTimeout, FIDOError.userActionTimeout:
            return timeout
        case FIDOError.receiveFailed:
            // libfido2 says FIDO_ERR_RX both when its timeout ran out and when the key's answer was unreadable
            // (a report that is short, garbled or out of sequence, a message too long): the first is a timeout,
            // answered above.
            return WebAuthnError(
                name: .notAllowed, message: "The security key's answer could not be read (FIDO_ERR_RX).")
        case FIDOError.keyStoreFull:
            return WebAuthnError(
                name: .notAllowed,
                message: "The security key has no room for another passkey: remove one you no longer use.")
        case FIDOError.keepaliveCancel, FIDOError.operationDenied, FIDOError.notAllowed, FIDOError.upRequired:
            return WebAuthnError(name: .notAllowed, message: "The operation was refused on the security key.")
        default:
            return WebAuthnError(name: .notAllowed, message: "The security key reported an error (\(error.codeName)).")
        }
    }

    /// The key's answers that come only once the user acted on it, so among several keys they end the ceremony as
    /// Chromium ends it (`ConvertDeviceResponseCode` in its make_credential/get_assertion request handlers): an
    /// excluded credential, no credential, a refusal, a failed fingerprint, a full key. Any other failure drops
    /// that key while the others may still be touched.
    static let afterUserAction: Set<Int32> = [
        FIDOError.credentialExcluded, FIDOError.noCredentials, FIDOError.operationDenied, FIDOError.pinAuthInvalid,
        FIDOError.uvInvalid, FIDOError.keyStoreFull,
    ]

    /// A key whose getInfo lists none of the requested algorithms: NotAllowedError, as Chromium's
    /// kNoCommonAlgorithms (make_credential_request_handler.cc, after a touch; authenticator_common_impl.cc makes it
    /// NOT_ALLOWED_ERROR). The list goes to the log and the extension's notice.
    static func noCommonAlgorithm(_ requested: [Int]) -> WebAuthnError {
        WebAuthnError(
            name: .notAllowed, message: "The security key supports none of the requested algorithms \(requested)."
        ).retryable()
    }

    /// A key that holds none of the allowed credentials, once the user touched it.
    static let noCredential = WebAuthnError(
        name: .notAllowed, message: "The security key has no credential for this site."
    ).retryable()
    static let timeout = WebAuthnError(name: .notAllowed, message: "The operation timed out.")
    static let aborted = WebAuthnError(name: .abort, message: "The operation was aborted.")
    /// What one of several keys ends with when another key won the ceremony (`KeyRace`); never sent.
    static let lostRace = WebAuthnError(name: .abort, message: "Another key answered first.")

    /// The text the page's DOMException carries for `error`: Chromium's fixed text for the name, except where
    /// the message only describes the page's own request, in Chromium's words (TypeError, SyntaxError,
    /// RangeError, a NotSupportedError about the options). What depends on the key, the host or its limits is
    /// never one of those names: it is NotAllowedError, as Chromium makes it.
    static func pageMessage(for error: WebAuthnError) -> String {
        switch error.name {
        case .notAllowed: PageText.notAllowed
        case .invalidState: PageText.credentialExcluded
        // RelyingPartyIDValidator words every rp.id refusal this way; the rest are the origin's or the appid's.
        case .security:
            error.message.hasPrefix("The relying party ID") ? PageText.badRelyingPartyID : PageText.invalidDomain
        case .encoding, .unknown, .constraint: PageText.unknown
        default: error.message  // TypeError, SyntaxError, NotSupportedError, AbortError, RangeError
        }
    }

    /// Chromium's texts (Blink, `AuthenticatorStatusToDOMException` in credentials_container.cc).
    enum PageText {
        static let notAllowed =
            "The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client."
        static let credentialExcluded =
            "The user attempted to register an authenticator that contains one of the credentials already registered with the relying party."
        static let badRelyingPartyID =
            "The relying party ID is not a registrable domain suffix of, nor equal to the current domain."
        static let invalidDomain = "This is an invalid domain."
        static let unknown = "An unknown error occurred while talking to the credential manager."
    }
}
