#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A secret-free description of a token, for `webauthn-bridge token show` and for tests.
public struct SoftTokenSummary: Sendable, Codable, Equatable {
    public struct Credential: Sendable, Codable, Equatable {
        public let rpID: String
        public let userName: String?
        public let userDisplayName: String?
        public let userID: [UInt8]
        public let credentialID: [UInt8]
        public let signCount: UInt32
        public let discoverable: Bool
        /// COSE algorithm: -7 ES256, -8 EdDSA.
        public let algorithm: Int
        public let credProtect: Int
    }

    public let notice: String
    public let path: String
    public let aaguid: [UInt8]
    public let pinSet: Bool
    public let pinRetries: Int
    public let uvRetries: Int
    public let configuration: SoftTokenConfiguration
    public let credentials: [Credential]
    public let largeBlobArrayBytes: Int
    /// What the owner changed through CTAP (`OwnerSettings`), as the key now applies it.
    public let alwaysUV: Bool
    public let minPINLength: Int
    public let forcePINChange: Bool
    /// The enrolled fingers' names ("" for one without a name).
    public let fingerprintNames: [String]

    init(path: String, state: TokenState) {
        notice = "development/test authenticator (SoftToken) — not a hardware security key"
        self.path = path
        aaguid = state.configuration.aaguid
        pinSet = state.pinHash != nil
        pinRetries = state.pinRetries
        uvRetries = state.uvRetries
        configuration = state.configuration
        largeBlobArrayBytes = state.largeBlobArray.count
        let settings = state.settings
        alwaysUV = settings.alwaysUV ?? state.configuration.alwaysUV
        minPINLength = settings.minPINLength ?? state.configuration.minPINLength
        forcePINChange = settings.forcePINChange
        fingerprintNames = settings.fingerprints.map { $0.name ?? "" }
        credentials = state.credentials.sorted { ($0.rpID, $0.created) < ($1.rpID, $1.created) }.map {
            Credential(
                rpID: $0.rpID, userName: $0.userName, userDisplayName: $0.userDisplayName, userID: Array($0.userID),
                credentialID: Array($0.id), signCount: $0.signCount, discoverable: $0.discoverable,
                algorithm: $0.algorithm, credProtect: $0.credProtect)
        }
    }
}
