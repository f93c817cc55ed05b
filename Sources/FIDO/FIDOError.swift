import CFIDO2

/// A libfido2 call that did not return FIDO_OK. Errors are values, as in libfido2 itself:
/// `code` is the FIDO_ERR_* number, `function` the call that failed (for the log line).
public struct FIDOError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let function: String

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
    }

    /// libfido2's own name for the code, e.g. "FIDO_ERR_PIN_INVALID".
    public var codeName: String { code == Self.deviceRemoved ? "key removed" : String(cString: fido_strerr(code)) }
    public var description: String { "\(function): \(codeName)" }

    /// Turns a libfido2 status into a thrown error.
    @inline(__always)
    static func check(_ status: Int32, _ function: String) throws(FIDOError) {
        if status != FIDO_OK { throw FIDOError(code: status, function: function) }
    }

    // The codes the ceremony logic branches on.
    public static let pinInvalid = FIDO_ERR_PIN_INVALID
    public static let pinBlocked = FIDO_ERR_PIN_BLOCKED
    public static let pinAuthBlocked = FIDO_ERR_PIN_AUTH_BLOCKED
    public static let pinAuthInvalid = FIDO_ERR_PIN_AUTH_INVALID
    public static let pinRequired = FIDO_ERR_PIN_REQUIRED
    public static let pinNotSet = FIDO_ERR_PIN_NOT_SET
    public static let uvBlocked = FIDO_ERR_UV_BLOCKED
    public static let uvInvalid = FIDO_ERR_UV_INVALID
    public static let credentialExcluded = FIDO_ERR_CREDENTIAL_EXCLUDED
    public static let noCredentials = FIDO_ERR_NO_CREDENTIALS
    /// A U2F key's answer to a check-only (up=false) assertion: the credential is there.
    public static let userPresenceRequired = FIDO_ERR_USER_PRESENCE_REQUIRED
    /// Not a libfido2 status: a request failed on I/O and the key is no longer plugged in (`Device`).
    public static let deviceRemoved: Int32 = -0x7E0
    public static let keepaliveCancel = FIDO_ERR_KEEPALIVE_CANCEL
    public static let operationDenied = FIDO_ERR_OPERATION_DENIED
    public static let notAllowed = FIDO_ERR_NOT_ALLOWED
    public static let actionTimeout = FIDO_ERR_ACTION_TIMEOUT
    public static let userActionTimeout = FIDO_ERR_USER_ACTION_TIMEOUT
    public static let unsupportedAlgorithm = FIDO_ERR_UNSUPPORTED_ALGORITHM
    public static let unsupportedOption = FIDO_ERR_UNSUPPORTED_OPTION
    public static let unsupportedExtension = FIDO_ERR_UNSUPPORTED_EXTENSION
    public static let keyStoreFull = FIDO_ERR_KEY_STORE_FULL
    public static let receiveFailed = FIDO_ERR_RX
    public static let transmitFailed = FIDO_ERR_TX
    public static let internalError = FIDO_ERR_INTERNAL
    public static let upRequired = FIDO_ERR_UP_REQUIRED
    // The codes the key's owner operations (`webauthn-bridge key`, the Security keys page) branch on.
    public static let invalidCommand = FIDO_ERR_INVALID_COMMAND
    public static let pinPolicyViolation = FIDO_ERR_PIN_POLICY_VIOLATION
    public static let fingerprintDatabaseFull = FIDO_ERR_FP_DATABASE_FULL
    public static let invalidOption = FIDO_ERR_INVALID_OPTION
    public static let invalidLength = FIDO_ERR_INVALID_LENGTH
}
