import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything a SoftToken must remember across processes: the one thing written to its state file.
///
/// Secrets live here in the clear (private keys, the credential-wrapping key, the PIN hash): this is a development
/// and test authenticator, and the file is created mode 0600. Volatile CTAP state (pinUvAuthToken, key agreement
/// key, consecutive PIN failures) deliberately does not: a real key loses it on power-off too.
struct TokenState: Codable, Sendable, Equatable {
    static let formatVersion = 1
    static let formatName = "webauthn-bridge SoftToken"

    var format = TokenState.formatName
    var notice = "Development/test authenticator. Holds unprotected private keys; never use it for real accounts."
    var version = TokenState.formatVersion
    var configuration: SoftTokenConfiguration
    /// AES-256-GCM key that seals non-discoverable credential IDs (and every credential ID's private part).
    var wrappingKey: Data
    /// LEFT(SHA-256(PIN), 16), as CTAP stores it; nil while no PIN is set.
    var pinHash: Data?
    var pinRetries: Int = TokenState.maxPINRetries
    var uvRetries: Int = TokenState.maxUVRetries
    var credentials: [StoredCredential] = []
    /// The CTAP 2.1 serialized large-blob array, trailer included.
    var largeBlobArray: Data = Data(TokenState.emptyLargeBlobArray)
    /// PKCS#8 of the token-wide attestation key and its self-signed certificate (attestation mode `.certificate`).
    var attestationKey: Data?
    var attestationCertificate: Data?
    /// Increases with every credential made, so discoverable credentials can be listed newest first.
    var creationCounter: Int = 0
    /// New on every whole save of the state file; names the journal and counter file that belong to it (see
    /// `StateJournal`, `CounterFile`).
    /// Absent in files written before counter files existed, which older builds still read (they ignore it).
    var counterGeneration: String?
    /// What the owner changed through CTAP commands (`OwnerSettings`, read through `settings`); absent in files
    /// written before it existed and while nothing was changed.
    var ownerSettings: OwnerSettings?

    static let maxPINRetries = 8
    static let maxUVRetries = 8

    /// CBOR empty array (0x80) followed by LEFT(SHA-256(0x80), 16): the initial value CTAP 2.1 §6.10.2 prescribes.
    static var emptyLargeBlobArray: [UInt8] { [0x80] + Array(Digest.sha256([0x80]).prefix(16)) }

    static func fresh(configuration: SoftTokenConfiguration) -> TokenState {
        TokenState(configuration: configuration, wrappingKey: Data(Digest.randomBytes(32)))
    }
}

/// One credential the token made: its metadata and signature counter. The private key and the other per-credential
/// secrets live only inside the sealed credential ID (`CredentialID`), for discoverable credentials too.
struct StoredCredential: Codable, Sendable, Equatable {
    var id: Data
    var rpID: String
    var rpName: String?
    var userID: Data
    var userName: String?
    var userDisplayName: String?
    var algorithm: Int
    var signCount: UInt32
    var discoverable: Bool
    var credProtect: Int
    var created: Int
}

extension TokenState {
    /// The index of the record for a credential ID. Compares bytes in place: this runs over every record on
    /// every getAssertion.
    func credentialIndex(id: [UInt8]) -> Int? {
        credentials.firstIndex { record in
            record.id.count == id.count
                && record.id.withUnsafeBytes { stored in
                    id.withUnsafeBytes { wanted in stored.elementsEqual(wanted) }
                }
        }
    }
}
