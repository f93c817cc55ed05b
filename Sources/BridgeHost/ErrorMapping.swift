import FIDO
import WebAuthn

/// libfido2/CTAP outcomes → the DOMException a browser would raise (docs/errors.md has the table).
/// Browsers deliberately collapse most failures into NotAllowedError so pages learn little about the key;
/// the log line keeps the precise libfido2 code for whoever debugs it.
enum ErrorMapping {
    static func webAuthnError(for error: FIDOError, cancelled: Bool, timedOut: Bool) -> WebAuthnError {
        if cancelled { return WebAuthnError(name: .abort, message: "The operation was aborted.") }
        if timedOut { return timeout }
        switch error.code {
        case FIDOError.credentialExcluded:
            return WebAuthnError(name: .invalidState,
                                 message: "The security key already holds a credential registered with this site.")
        case FIDOError.unsupportedAlgorithm:
            return WebAuthnError(name: .notSupported, message: "The security key supports none of the requested algorithms.")
        case FIDOError.unsupportedOption:
            // Chromium turns the key's refusal into NotAllowedError, like any failure of the only key.
            return WebAuthnError(name: .notAllowed, message: "The security key does not support an option this request requires.")
        case FIDOError.pinBlocked:
            return WebAuthnError(name: .notAllowed, message: "The security key's PIN is blocked after too many wrong attempts; the key must be reset.")
        case FIDOError.pinAuthBlocked:
            return WebAuthnError(name: .notAllowed, message: "Too many wrong PINs in a row: remove and reinsert the security key, then try again.")
        case FIDOError.pinRequired, FIDOError.pinNotSet:
            return WebAuthnError(name: .notAllowed, message: "The security key requires a PIN for this request.")
        case FIDOError.uvBlocked:
            return WebAuthnError(name: .notAllowed, message: "The security key's built-in user verification is blocked.")
        case FIDOError.noCredentials:
            return WebAuthnError(name: .notAllowed, message: "The security key has no credential for this site.")
        case FIDOError.actionTimeout, FIDOError.userActionTimeout, FIDOError.receiveFailed:
            return timeout
        case FIDOError.keepaliveCancel, FIDOError.operationDenied, FIDOError.notAllowed, FIDOError.upRequired:
            return WebAuthnError(name: .notAllowed, message: "The operation was refused on the security key.")
        default:
            return WebAuthnError(name: .notAllowed, message: "The security key reported an error (\(error.codeName)).")
        }
    }

    static let timeout = WebAuthnError(name: .notAllowed, message: "The operation either timed out or was not allowed.")
    static let aborted = WebAuthnError(name: .abort, message: "The operation was aborted.")
}
