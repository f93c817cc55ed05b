import CBOR
import CTAP
import Cryptography

/// The authenticator side of PIN/UV auth protocols 1 and 2 (CTAP 2.1 §6.5.6, §6.5.7).
///
/// Both share one ECDH P-256 key agreement key; they differ in how the shared secret is derived, how data is
/// encrypted (fixed zero IV vs. random IV prefix) and how long the HMAC tag is (16 vs. 32 bytes).
struct PINProtocol: Sendable {
    let version: Int

    init?(_ version: Int) {
        guard version == 1 || version == 2 else { return nil }
        self.version = version
    }

    /// ECDH with the platform's COSE key (-25, ECDH-ES+HKDF-256) and the protocol's KDF.
    func sharedSecret(keyAgreement: KeyAgreementKey, platformKey: CBOR?) throws(CTAPStatus) -> [UInt8] {
        guard let platformKey, platformKey.mapValue != nil else { throw .missingParameter }
        guard platformKey[int: 1]?.intValue == 2, platformKey[int: -1]?.intValue == 1,
            let x = platformKey[int: -2]?.bytesValue, let y = platformKey[int: -3]?.bytesValue
        else { throw .invalidParameter }
        let peer: PublicKey
        do { peer = try PublicKey.p256(x: x, y: y) } catch { throw .invalidParameter }
        var z: [UInt8]
        do { z = try keyAgreement.sharedSecret(with: peer) } catch { throw .invalidParameter }
        defer { Digest.zero(&z) }
        return kdf(z)
    }

    func kdf(_ z: [UInt8]) -> [UInt8] {
        if version == 1 { return Digest.sha256(z) }
        let salt = [UInt8](repeating: 0, count: 32)
        return Digest.hkdfSHA256(ikm: z, salt: salt, info: Array("CTAP2 HMAC key".utf8))
            + Digest.hkdfSHA256(ikm: z, salt: salt, info: Array("CTAP2 AES key".utf8))
    }

    private func aesKey(_ shared: [UInt8]) -> [UInt8] { version == 1 ? shared : Array(shared.suffix(32)) }
    private func hmacKey(_ shared: [UInt8]) -> [UInt8] { Array(shared.prefix(32)) }

    func encrypt(key shared: [UInt8], _ plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            if version == 1 {
                return try SymmetricCipher.aes256CBC(
                    encrypt: true, key: aesKey(shared), iv: [UInt8](repeating: 0, count: 16), data: plaintext)
            }
            let iv = Digest.randomBytes(16)
            return iv + (try SymmetricCipher.aes256CBC(encrypt: true, key: aesKey(shared), iv: iv, data: plaintext))
        } catch { throw .other }
    }

    func decrypt(key shared: [UInt8], _ ciphertext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            if version == 1 {
                guard ciphertext.count % 16 == 0 else { throw CTAPStatus.invalidParameter }
                return try SymmetricCipher.aes256CBC(
                    encrypt: false, key: aesKey(shared), iv: [UInt8](repeating: 0, count: 16), data: ciphertext)
            }
            guard ciphertext.count >= 16, ciphertext.count % 16 == 0 else { throw CTAPStatus.invalidParameter }
            return try SymmetricCipher.aes256CBC(
                encrypt: false, key: aesKey(shared), iv: Array(ciphertext.prefix(16)),
                data: Array(ciphertext.dropFirst(16)))
        } catch { throw .invalidParameter }
    }

    /// The protocol's MAC: protocol 1 truncates HMAC-SHA-256 to 16 bytes, protocol 2 keeps all 32.
    func authenticate(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let mac = Digest.hmacSHA256(key: hmacKey(key), data: message)
        return version == 1 ? Array(mac.prefix(16)) : mac
    }

    func verify(key: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        Digest.constantTimeEqual(authenticate(key: key, message), signature)
    }
}
