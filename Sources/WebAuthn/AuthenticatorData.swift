import CBOR
import Cryptography

/// Authenticator data (§6.1) as the security key returned it: the structure the relying party verifies and the
/// bytes the key signed, so `bytes` is always passed on unchanged. The client parses it only to answer
/// `getPublicKey()`, `getPublicKeyAlgorithm()` and the credential id, and to refuse a response so malformed that
/// a relying party could not use it.
public struct AuthenticatorData: Sendable {
    /// The flags byte; bit meanings from §6.1.
    public struct Flags: Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public var userPresent: Bool { rawValue & 0x01 != 0 }
        public var userVerified: Bool { rawValue & 0x04 != 0 }
        public var backupEligible: Bool { rawValue & 0x08 != 0 }
        public var backedUp: Bool { rawValue & 0x10 != 0 }
        public var attestedCredentialData: Bool { rawValue & 0x40 != 0 }
        public var extensionData: Bool { rawValue & 0x80 != 0 }
    }

    /// Attested credential data (§6.5.1), present in registration responses.
    public struct AttestedCredential: Sendable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The credential public key as decoded CBOR, and exactly as the authenticator encoded it.
        public let publicKeyCOSE: CBOR
        public let publicKeyCOSEBytes: [UInt8]
        /// The key as OpenSSL understands it; nil for key types it cannot express (the response then carries no
        /// SPKI `publicKey`, as §5.2.1.1 allows, and the relying party reads the COSE key instead).
        public let publicKey: PublicKey?
        /// The COSE `alg` (label 3) of the key.
        public let algorithm: Int
    }

    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    /// The authenticator extension outputs map, when the ED flag is set.
    public let extensions: CBOR?

    /// Fixed part: rpIdHash (32) ‖ flags (1) ‖ signCount (4).
    static let headerLength = 37

    /// Parses with every length checked first, so a truncated or hostile response is an error, never a crash.
    /// Errors are EncodingError: the authenticator's answer could not be decoded.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        func malformed(_ why: String) -> WebAuthnError {
            .encoding("The security key returned malformed authenticator data: \(why)")
        }

        guard bytes.count >= Self.headerLength else {
            throw malformed("\(bytes.count) bytes, fewer than the \(Self.headerLength) required")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = Self.headerLength

        if flags.attestedCredentialData {
            guard bytes.count >= offset + 18 else { throw malformed("attested credential data is truncated") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard bytes.count >= offset + idLength else { throw malformed("credential ID is truncated") }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let key: CBOR
            let used: Int
            do {
                (key, used) = try CBOR.decodePrefix(bytes[offset...])
            } catch {
                throw malformed("credential public key is not valid CBOR (\(error))")
            }
            let keyBytes = Array(bytes[offset..<offset + used])
            offset += used
            let (algorithm, publicKey) = try Self.interpret(key, malformed: malformed)
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyCOSE: key, publicKeyCOSEBytes: keyBytes,
                publicKey: publicKey, algorithm: algorithm)
        } else {
            attestedCredential = nil
        }

        if flags.extensionData {
            let map: CBOR
            let used: Int
            do {
                (map, used) = try CBOR.decodePrefix(bytes[offset...])
            } catch {
                throw malformed("extension outputs are not valid CBOR (\(error))")
            }
            guard map.mapValue != nil else { throw malformed("extension outputs are not a CBOR map") }
            offset += used
            extensions = map
        } else {
            extensions = nil
        }

        guard offset == bytes.count else { throw malformed("\(bytes.count - offset) unexpected bytes at the end") }
    }

    /// The COSE key's algorithm and, when OpenSSL can express it, the key itself.
    static func interpret(_ key: CBOR, malformed: (String) -> WebAuthnError) throws(WebAuthnError) -> (Int, PublicKey?)
    {
        guard let entries = key.mapValue else { throw malformed("credential public key is not a COSE_Key map") }
        var cose: [Int: COSEValue] = [:]
        for (label, value) in entries {
            guard let label = label.intValue else { continue }
            if let int = value.intValue {
                cose[label] = .int(int)
            } else if let bytes = value.bytesValue {
                cose[label] = .bytes(bytes)
            }
        }
        guard case .int(let algorithm)? = cose[3], case .int? = cose[1] else {
            throw malformed("credential public key lacks kty (1) or alg (3)")
        }
        return (algorithm, try? PublicKey.fromCOSE(cose))
    }
}
