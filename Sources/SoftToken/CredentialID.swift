import CBOR
import CTAP
import Cryptography

/// The secrets of one credential, sealed into its credential ID.
///
/// Every credential ID — discoverable or not — is `0x01 ‖ nonce(12) ‖ AES-256-GCM(wrappingKey, CBOR secrets)`
/// with the RP ID hash as associated data, so an ID only opens for the RP it was made for and a non-discoverable
/// credential needs no storage on the token. `reset` replaces the wrapping key, which kills every old ID.
struct CredentialSecrets {
    var algorithm: SigningAlgorithm
    var privateKey: [UInt8]
    var credProtect: Int
    /// hmac-secret's CredRandomWithUV / CredRandomWithoutUV (CTAP 2.1 §12.5): a different PRF with and without UV.
    var credRandomWithUV: [UInt8]
    var credRandomWithoutUV: [UInt8]
    var credBlob: [UInt8]?
    var largeBlobKey: [UInt8]?
    var discoverable: Bool
    /// Made with the hmac-secret extension; only such credentials answer it in getAssertion.
    var hmacSecret: Bool

    func credRandom(userVerified: Bool) -> [UInt8] { userVerified ? credRandomWithUV : credRandomWithoutUV }
}

enum CredentialID {
    static let version: UInt8 = 1

    static func seal(_ secrets: CredentialSecrets, rpIDHash: [UInt8], key: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        var entries: [(CBOR, CBOR)] = [
            (1, .int(secrets.algorithm.rawValue)),
            (2, .bytes(secrets.privateKey)),
            (3, .int(secrets.credProtect)),
            (4, .bytes(secrets.credRandomWithUV)),
            (5, .bytes(secrets.credRandomWithoutUV)),
            (8, .bool(secrets.discoverable)),
            (9, .bool(secrets.hmacSecret)),
        ]
        if let blob = secrets.credBlob { entries.append((6, .bytes(blob))) }
        if let key = secrets.largeBlobKey { entries.append((7, .bytes(key))) }
        var plaintext = CBOR.map(entries).encode()
        defer { Digest.zero(&plaintext) }
        let nonce = Digest.randomBytes(12)
        do {
            return [version] + nonce
                + (try SymmetricCipher.aes256GCMSeal(key: key, nonce: nonce, plaintext: plaintext, aad: rpIDHash))
        } catch { throw .other }
    }

    /// nil when the ID was not made by this token (since its last reset) for this RP.
    static func open(_ id: [UInt8], rpIDHash: [UInt8], key: [UInt8]) -> CredentialSecrets? {
        guard id.count > 1 + 12 + 16, id[0] == version else { return nil }
        let nonce = Array(id[1..<13])
        guard
            var plaintext = try? SymmetricCipher.aes256GCMOpen(
                key: key, nonce: nonce, sealed: Array(id[13...]), aad: rpIDHash)
        else { return nil }
        defer { Digest.zero(&plaintext) }
        guard let map = try? CBOR.decode(plaintext),
            let alg = map[int: 1]?.intValue, let algorithm = SigningAlgorithm(rawValue: alg),
            let privateKey = map[int: 2]?.bytesValue, let credProtect = map[int: 3]?.intValue,
            let withUV = map[int: 4]?.bytesValue, let withoutUV = map[int: 5]?.bytesValue,
            let discoverable = map[int: 8]?.boolValue
        else { return nil }
        return CredentialSecrets(
            algorithm: algorithm, privateKey: privateKey, credProtect: credProtect, credRandomWithUV: withUV,
            credRandomWithoutUV: withoutUV, credBlob: map[int: 6]?.bytesValue, largeBlobKey: map[int: 7]?.bytesValue,
            discoverable: discoverable, hmacSecret: map[int: 9]?.boolValue ?? false)
    }
}
