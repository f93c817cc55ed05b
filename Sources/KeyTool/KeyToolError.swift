import FIDO

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
                "The key's PIN is blocked. Only a reset of the key (which deletes every passkey on it) makes it usable."
            )
        case FIDOError.pinNotSet:
            return KeyToolError("The key has no PIN. Set one first (in a browser's security-key settings or ykman).")
        case FIDOError.noCredentials:
            return KeyToolError(
                "The key holds no passkey with that ID. List them with `webauthn-bridge key passkeys`.")
        case FIDOError.deviceRemoved:
            return KeyToolError("The key was removed. Plug it in again and retry.")
        default:
            return KeyToolError("The key refused: \(error). Retry; if it persists, run `webauthn-bridge doctor`.")
        }
    }
}
