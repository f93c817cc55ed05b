import COpenSSL

/// A libcrypto call that failed; `operation` names it for the log.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    public let operation: String
    public init(_ operation: String) { self.operation = operation }
    public var description: String { "libcrypto: \(operation) failed" }
}

/// Hashes, MACs, key derivation and randomness, all through OpenSSL's libcrypto.
public enum Digest {
    public static func sha256(_ data: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        let ok = Array(data).withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &out, &len, EVP_sha256(), nil)
        }
        precondition(ok == 1, "EVP_Digest(SHA-256) cannot fail for in-memory input")
        return out
    }

    public static func hmacSHA256(key: [UInt8], data: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        let bytes = Array(data)
        let result = HMAC(EVP_sha256(), key, Int32(key.count), bytes, bytes.count, &out, &len)
        precondition(result != nil, "HMAC-SHA-256 cannot fail for in-memory input")
        return out
    }

    /// HKDF-SHA-256 (RFC 5869) for outputs of at most 32 bytes, which is all CTAP's PIN protocol 2 needs.
    public static func hkdfSHA256(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int = 32) -> [UInt8] {
        precondition(length <= 32, "one HMAC block is enough for CTAP")
        let prk = hmacSHA256(key: salt, data: ikm)
        return Array(hmacSHA256(key: prk, data: info + [0x01]).prefix(length))
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&out, Int32(count)) == 1, "the system RNG failed")
        return out
    }

    /// Compares without early exit, for MACs and PIN hashes.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// Overwrites a secret in place before it is released.
    public static func zero(_ buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) }
        }
    }
}
