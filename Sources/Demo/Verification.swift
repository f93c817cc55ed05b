import Cryptography
import WebAuthn

/// What the relying party expects of one ceremony: the challenge it issued, its own origin and rp.id. The
/// browser's word is checked against these, never taken.
public struct ExpectedCeremony: Sendable {
    public let type: ClientDataType
    public let challenge: [UInt8]
    public let origin: String
    public let rpID: String

    public init(type: ClientDataType, challenge: [UInt8], origin: String, rpID: String) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.rpID = rpID
    }
}

/// Why the demo relying party refused a credential; `description` is what the demo page shows.
public enum VerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case wrongType(String)
    case challengeMismatch
    case originMismatch(String)
    case crossOrigin
    case rpIDHashMismatch
    case userNotPresent
    case badSignature
    case counterNotIncreased(stored: UInt32, received: UInt32)
    case unknownCredential
    case attestation(String)

    public var description: String {
        switch self {
        case .malformed(let why): "malformed response: \(why)"
        case .wrongType(let type): "clientDataJSON.type is \"\(type)\", not the ceremony's"
        case .challengeMismatch: "clientDataJSON.challenge is not the challenge this server issued"
        case .originMismatch(let origin): "clientDataJSON.origin \"\(origin)\" is not this server's origin"
        case .crossOrigin: "the ceremony ran in a cross-origin frame"
        case .rpIDHashMismatch: "authenticator data's rpIdHash is not SHA-256 of this server's rp.id"
        case .userNotPresent: "the UP (user present) flag is not set"
        case .badSignature: "the signature does not verify with the credential's public key"
        case .counterNotIncreased(let stored, let received):
            "the signature counter went from \(stored) to \(received): the credential may have been cloned"
        case .unknownCredential: "no credential with this id is registered here"
        case .attestation(let why): "attestation: \(why)"
        }
    }
}

/// The checks both ceremonies share (WebAuthn L3 §7.1 steps 7–14 and §7.2 steps 11–17).
enum CeremonyChecks {
    /// clientDataJSON: type, challenge, origin and crossOrigin, as the RP reads them after parsing.
    static func clientData(_ bytes: [UInt8], expected: ExpectedCeremony) throws(VerificationError) {
        let parsed: JSONValue
        do { parsed = try JSONValue.parse(bytes) } catch { throw .malformed("clientDataJSON is not JSON (\(error))") }
        guard let type = parsed["type"]?.stringValue else { throw .malformed("clientDataJSON has no type") }
        guard type == expected.type.rawValue else { throw .wrongType(type) }
        guard let challengeText = parsed["challenge"]?.stringValue, let challenge = Base64URL.decode(challengeText)
        else {
            throw .malformed("clientDataJSON.challenge is not base64url")
        }
        guard challenge == expected.challenge else { throw .challengeMismatch }
        guard let origin = parsed["origin"]?.stringValue else { throw .malformed("clientDataJSON has no origin") }
        guard origin == expected.origin else { throw .originMismatch(origin) }
        if parsed["crossOrigin"]?.boolValue == true { throw .crossOrigin }
    }

    /// Authenticator data: rpIdHash and the UP flag.
    static func authenticatorData(_ data: AuthenticatorData, expected: ExpectedCeremony) throws(VerificationError) {
        guard data.rpIDHash == Digest.sha256(Array(expected.rpID.utf8)) else { throw .rpIDHashMismatch }
        guard data.flags.userPresent else { throw .userNotPresent }
    }

    static func parseAuthenticatorData(_ bytes: [UInt8]) throws(VerificationError) -> AuthenticatorData {
        do { return try AuthenticatorData(bytes: bytes) } catch { throw .malformed("\(error)") }
    }

    /// The message an assertion or a packed attestation signs: authenticatorData ‖ SHA-256(clientDataJSON).
    static func signedMessage(authenticatorData: [UInt8], clientDataJSON: [UInt8]) -> [UInt8] {
        authenticatorData + Digest.sha256(clientDataJSON)
    }
}
