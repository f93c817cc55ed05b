import Cryptography

/// Parsed private keys by their PKCS#8 bytes, so signing with a key the token used a moment ago skips
/// `d2i_AutoPrivateKey`. Parsing an EC key recomputes its public point: once the state file stopped being
/// re-encoded, that was most of a getAssertion's instructions (and a makeCredential parses the attestation key).
/// Kept for its figure: `bench --ceremonies 1000`, release builds with and without it interleaved, five runs each
/// (load 6–8), p50 inside libfido2 and the token: create 0.81–0.97 ms with it, 1.36–1.70 ms without; get
/// 0.96–1.88 ms with it, 1.98–3.46 ms without.
///
/// Bounded, so a token with many credentials does not keep every key parsed. Keyed by the key bytes themselves,
/// so a hit is the same key by construction; the process already holds these bytes while it signs.
struct SigningKeyCache {
    static let capacity = 32
    private var keys: [[UInt8]: SigningKey] = [:]

    mutating func key(pkcs8DER der: [UInt8]) throws(CryptoError) -> SigningKey {
        if let key = keys[der] { return key }
        let key = try SigningKey.load(pkcs8DER: der)
        if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
        keys[der] = key
        return key
    }
}
