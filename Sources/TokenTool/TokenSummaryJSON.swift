import SoftToken

/// `token show --json`: the summary with byte strings as hex.
public struct TokenSummaryJSON: Encodable {
    struct Credential: Encodable {
        let rpID: String
        let userName: String?
        let userDisplayName: String?
        let userID: String
        let credentialID: String
        let signCount: UInt32
        let discoverable: Bool
        let algorithm: Int
        let credProtect: Int
    }
    let notice: String
    let path: String
    let aaguid: String
    let pinSet: Bool
    let pinRetries: Int
    let uvRetries: Int
    let residentKeys: Bool
    let builtInUV: Bool
    let presence: String
    let attestation: String
    let pinUvAuthProtocols: [Int]
    let profile: String?
    /// The USB identity the profile gives the token where it is shown as a USB key (tests' hidraw path).
    let usb: USBIdentity
    let capabilities: String
    let largeBlobArrayBytes: Int
    let alwaysUV: Bool
    let minPINLength: Int
    let forcePINChange: Bool
    let fingerprints: [String]
    let credentials: [Credential]

    public init(_ s: SoftTokenSummary) {
        notice = s.notice
        path = s.path
        aaguid = TokenDescription.hex(s.aaguid)
        pinSet = s.pinSet
        pinRetries = s.pinRetries
        uvRetries = s.uvRetries
        residentKeys = s.configuration.residentKeys
        builtInUV = s.configuration.builtInUV
        presence = PresenceOption.text(s.configuration.presence)
        attestation = s.configuration.attestation.rawValue
        pinUvAuthProtocols = s.configuration.pinUvAuthProtocols
        profile = s.configuration.profile
        usb = SoftTokenProfile.usbIdentity(ofProfile: s.configuration.profile)
        capabilities = TokenDescription.capabilities(s.configuration)
        largeBlobArrayBytes = s.largeBlobArrayBytes
        alwaysUV = s.alwaysUV
        minPINLength = s.minPINLength
        forcePINChange = s.forcePINChange
        fingerprints = s.fingerprintNames
        credentials = s.credentials.map {
            Credential(
                rpID: $0.rpID, userName: $0.userName, userDisplayName: $0.userDisplayName,
                userID: TokenDescription.hex($0.userID),
                credentialID: TokenDescription.hex($0.credentialID), signCount: $0.signCount,
                discoverable: $0.discoverable,
                algorithm: $0.algorithm, credProtect: $0.credProtect)
        }
    }
}
