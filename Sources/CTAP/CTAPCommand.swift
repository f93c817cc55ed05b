/// CTAP 2.1 authenticator command bytes (§6), the first byte of a CTAPHID_CBOR request: the one list, read by
/// SoftToken (which serves some of them) and the host's CTAP trace (which names them all). libfido2's
/// `CTAP_CBOR_*` (fido/param.h) are the same bytes; `CTAPTests` holds the two lists to each other.
public enum CTAPCommand: UInt8, Sendable, CaseIterable {
    case makeCredential = 0x01
    case getAssertion = 0x02
    case getInfo = 0x04
    case clientPIN = 0x06
    case reset = 0x07
    case getNextAssertion = 0x08
    case bioEnrollment = 0x09
    case credentialManagement = 0x0A
    case selection = 0x0B
    case largeBlobs = 0x0C
    case config = 0x0D
    /// The CTAP 2.1 preview commands, which keys made before CTAP 2.1 speak (and libfido2 still sends them).
    case bioEnrollmentPreview = 0x40
    case credentialManagementPreview = 0x41

    /// The spec's name (`authenticatorMakeCredential`), as a trace shows it.
    public var specName: String {
        switch self {
        case .makeCredential: "authenticatorMakeCredential"
        case .getAssertion: "authenticatorGetAssertion"
        case .getInfo: "authenticatorGetInfo"
        case .clientPIN: "authenticatorClientPIN"
        case .reset: "authenticatorReset"
        case .getNextAssertion: "authenticatorGetNextAssertion"
        case .bioEnrollment: "authenticatorBioEnrollment"
        case .credentialManagement: "authenticatorCredentialManagement"
        case .selection: "authenticatorSelection"
        case .largeBlobs: "authenticatorLargeBlobs"
        case .config: "authenticatorConfig"
        case .bioEnrollmentPreview: "authenticatorBioEnrollment (preview)"
        case .credentialManagementPreview: "authenticatorCredentialManagement (preview)"
        }
    }
}

/// CTAPHID command bytes (§11.2.9), without the frame's high bit. libfido2's `CTAP_CMD_*` are the same.
public enum CTAPHIDCommand: UInt8, Sendable, CaseIterable {
    case ping = 0x01
    case msg = 0x03
    case lock = 0x04
    case initialize = 0x06
    case wink = 0x08
    case cbor = 0x10
    case cancel = 0x11
    case keepalive = 0x3B
    case error = 0x3F
}
