/// CTAP 2.1 status codes (§8.2), the first byte of every CTAPHID_CBOR response: the one list, read by SoftToken
/// (which answers them) and the host's CTAP trace (which names them). libfido2 passes them on unchanged as
/// `FIDO_ERR_*` (fido/err.h); `CTAPTests` holds the two lists to each other.
public enum CTAPStatus: UInt8, Error, Sendable, CaseIterable {
    case ok = 0x00
    case invalidCommand = 0x01
    case invalidParameter = 0x02
    case invalidLength = 0x03
    case invalidSequence = 0x04
    case timeout = 0x05
    case channelBusy = 0x06
    case lockRequired = 0x0A
    case invalidChannel = 0x0B
    case cborUnexpectedType = 0x11
    case invalidCBOR = 0x12
    case missingParameter = 0x14
    case limitExceeded = 0x15
    case fingerprintDatabaseFull = 0x17
    case largeBlobStorageFull = 0x18
    case credentialExcluded = 0x19
    case processing = 0x21
    case invalidCredential = 0x22
    /// SoftToken also uses it inside the token to park a command until the simulated user touches; it never
    /// sends it.
    case userActionPending = 0x23
    case operationPending = 0x24
    case noOperations = 0x25
    case unsupportedAlgorithm = 0x26
    case operationDenied = 0x27
    case keyStoreFull = 0x28
    case noOperationPending = 0x2A
    case unsupportedOption = 0x2B
    case invalidOption = 0x2C
    case keepaliveCancel = 0x2D
    case noCredentials = 0x2E
    case userActionTimeout = 0x2F
    case notAllowed = 0x30
    case pinInvalid = 0x31
    case pinBlocked = 0x32
    case pinAuthInvalid = 0x33
    case pinAuthBlocked = 0x34
    case pinNotSet = 0x35
    case puatRequired = 0x36
    case pinPolicyViolation = 0x37
    case requestTooLarge = 0x39
    case actionTimeout = 0x3A
    case upRequired = 0x3B
    case uvBlocked = 0x3C
    case integrityFailure = 0x3D
    case invalidSubcommand = 0x3E
    case uvInvalid = 0x3F
    case unauthorizedPermission = 0x40
    case other = 0x7F

    /// The spec's name without its CTAP1_ERR_/CTAP2_ERR_ prefix (`PIN_INVALID`), as a trace shows it.
    public var specName: String {
        switch self {
        case .ok: "OK"
        case .invalidCommand: "INVALID_COMMAND"
        case .invalidParameter: "INVALID_PARAMETER"
        case .invalidLength: "INVALID_LENGTH"
        case .invalidSequence: "INVALID_SEQ"
        case .timeout: "TIMEOUT"
        case .channelBusy: "CHANNEL_BUSY"
        case .lockRequired: "LOCK_REQUIRED"
        case .invalidChannel: "INVALID_CHANNEL"
        case .cborUnexpectedType: "CBOR_UNEXPECTED_TYPE"
        case .invalidCBOR: "INVALID_CBOR"
        case .missingParameter: "MISSING_PARAMETER"
        case .limitExceeded: "LIMIT_EXCEEDED"
        case .fingerprintDatabaseFull: "FP_DATABASE_FULL"
        case .largeBlobStorageFull: "LARGE_BLOB_STORAGE_FULL"
        case .credentialExcluded: "CREDENTIAL_EXCLUDED"
        case .processing: "PROCESSING"
        case .invalidCredential: "INVALID_CREDENTIAL"
        case .userActionPending: "USER_ACTION_PENDING"
        case .operationPending: "OPERATION_PENDING"
        case .noOperations: "NO_OPERATIONS"
        case .unsupportedAlgorithm: "UNSUPPORTED_ALGORITHM"
        case .operationDenied: "OPERATION_DENIED"
        case .keyStoreFull: "KEY_STORE_FULL"
        case .noOperationPending: "NO_OPERATION_PENDING"
        case .unsupportedOption: "UNSUPPORTED_OPTION"
        case .invalidOption: "INVALID_OPTION"
        case .keepaliveCancel: "KEEPALIVE_CANCEL"
        case .noCredentials: "NO_CREDENTIALS"
        case .userActionTimeout: "USER_ACTION_TIMEOUT"
        case .notAllowed: "NOT_ALLOWED"
        case .pinInvalid: "PIN_INVALID"
        case .pinBlocked: "PIN_BLOCKED"
        case .pinAuthInvalid: "PIN_AUTH_INVALID"
        case .pinAuthBlocked: "PIN_AUTH_BLOCKED"
        case .pinNotSet: "PIN_NOT_SET"
        case .puatRequired: "PUAT_REQUIRED"
        case .pinPolicyViolation: "PIN_POLICY_VIOLATION"
        case .requestTooLarge: "REQUEST_TOO_LARGE"
        case .actionTimeout: "ACTION_TIMEOUT"
        case .upRequired: "UP_REQUIRED"
        case .uvBlocked: "UV_BLOCKED"
        case .integrityFailure: "INTEGRITY_FAILURE"
        case .invalidSubcommand: "INVALID_SUBCOMMAND"
        case .uvInvalid: "UV_INVALID"
        case .unauthorizedPermission: "UNAUTHORIZED_PERMISSION"
        case .other: "OTHER"
        }
    }
}
