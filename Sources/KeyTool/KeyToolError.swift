import FIDO
import Prompts

/// Why a `webauthn-bridge key` command stopped. Every message says what to do next; none holds a PIN.
public struct KeyToolError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }

    static let noKey = KeyToolError(
        "No security key found. Plug one in; if it is plugged in, run `webauthn-bridge doctor`.")

    static func severalKeys(_ paths: [String]) -> KeyToolError {
        KeyToolError(
            "Several keys are plugged in (\(paths.joined(separator: ", "))): name one with --device PATH.")
    }

    static func unknownDevice(_ path: String, _ paths: [String]) -> KeyToolError {
        KeyToolError(
            "No key at \(path). Keys found: \(paths.isEmpty ? "none" : paths.joined(separator: ", ")) "
                + "(`webauthn-bridge key list`).")
    }

    static let noPIN = KeyToolError(
        "The key has no PIN, and this needs one. Set one first with `webauthn-bridge key pin set`.")

    static let pinChangeRequired = KeyToolError(
        "The key asks for a new PIN before anything else. Run `webauthn-bridge key pin change`.")

    static let u2fOnly = KeyToolError(
        "This key speaks only U2F: it has no PIN, passkeys, fingerprints or settings to manage.")

    /// A command a CTAP 2.0 (or 2.1-PRE) key does not have, said with what it cannot do.
    static func lacks(_ what: String) -> KeyToolError {
        KeyToolError("This key \(what). Its maker's tool may offer more; nothing was changed.")
    }

    static func prompt(_ error: PromptError) -> KeyToolError {
        if error == .cancelled { return KeyToolError("PIN entry cancelled: nothing was changed.") }
        return KeyToolError("\(error). Set WEBAUTHN_BRIDGE_PINENTRY to a pinentry program, or run in a terminal.")
    }

    /// A libfido2 failure in words a key's owner can act on.
    static func fido(_ error: FIDOError, attemptsLeft: Int?) -> KeyToolError {
        switch error.code {
        case FIDOError.pinInvalid:
            let left = attemptsLeft.map { " \($0 - 1) attempts left before the key locks its PIN." } ?? ""
            return KeyToolError("Wrong PIN.\(left) Run the command again to retry.")
        case FIDOError.pinAuthBlocked:
            return KeyToolError("Three wrong PINs in a row: unplug the key, plug it in again, then retry.")
        case FIDOError.pinBlocked:
            return KeyToolError(
                "The key's PIN is blocked. Only a reset of the key (`webauthn-bridge key reset`, which deletes every "
                    + "passkey on it) makes it usable.")
        case FIDOError.pinNotSet:
            return noPIN
        case FIDOError.pinPolicyViolation:
            return KeyToolError(
                "The key refused the new PIN: it is shorter than the key's minimum, or the same as the one it must "
                    + "replace. Run the command again with another PIN.")
        case FIDOError.noCredentials:
            return KeyToolError(
                "The key holds no passkey with that ID. List them with `webauthn-bridge key passkeys`.")
        case FIDOError.deviceRemoved:
            return KeyToolError("The key was removed. Plug it in again and retry.")
        case FIDOError.operationDenied:
            return KeyToolError("The key refused (touch declined): nothing was changed. Run the command again.")
        case FIDOError.actionTimeout, FIDOError.userActionTimeout, FIDOError.receiveFailed:
            return KeyToolError("The key was not touched in time: nothing was changed. Run the command again.")
        case FIDOError.keepaliveCancel:
            return KeyToolError("Cancelled: nothing was changed.")
        case FIDOError.fingerprintDatabaseFull:
            return KeyToolError(
                "The key holds as many fingerprints as it can. Delete one first "
                    + "(`webauthn-bridge key fingerprints delete ID`).")
        case FIDOError.invalidCommand:
            return lacks("does not have this command (a CTAP 2.0 key, or one made before CTAP 2.1)")
        default:
            return KeyToolError("The key refused: \(error). Retry; if it persists, run `webauthn-bridge doctor`.")
        }
    }
}
