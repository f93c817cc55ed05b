import COpenSSL

/// The COSE algorithms this project can make keys for.
public enum SigningAlgorithm: Int, Sendable, CaseIterable {
    case es256 = -7
    case edDSA = -8
}

/// A private key held by OpenSSL. Serialised as PKCS#8 DER so one format covers every algorithm.
public final class SigningKey: @unchecked Sendable {
    public let algorithm: SigningAlgorithm
    let pkey: OpaquePointer

    private init(algorithm: SigningAlgorithm, pkey: OpaquePointer) {
        self.algorithm = algorithm
        self.pkey = pkey
    }
    deinit { EVP_PKEY_free(pkey) }

    public static func generate(_ algorithm: SigningAlgorithm) throws(CryptoError) -> SigningKey {
        let ctx: OpaquePointer?
        switch algorithm {
        case .es256: ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil)
        case .edDSA: ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil)
        }
        guard let ctx else { throw CryptoError("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw CryptoError("EVP_PKEY_keygen_init") }
        if algorithm == .es256, EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) != 1 {
            throw CryptoError("set P-256 curve")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw CryptoError("EVP_PKEY_keygen") }
        return SigningKey(algorithm: algorithm, pkey: key)
    }

    /// Loads a key written by `pkcs8DER`.
    public static func load(pkcs8DER der: [UInt8]) throws(CryptoError) -> SigningKey {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw CryptoError("d2i_AutoPrivateKey") }
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_EC: return SigningKey(algorithm: .es256, pkey: key)
        case EVP_PKEY_ED25519: return SigningKey(algorithm: .edDSA, pkey: key)
        default:
            EVP_PKEY_free(key)
            throw CryptoError("unsupported private key type")
        }
    }

    public var pkcs8DER: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PrivateKey(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_clear_free(out, Int(length), #file, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The public key: for ES256 the 65-byte uncompressed point, for EdDSA the 32 raw bytes.
    public var publicKeyBytes: [UInt8] {
        switch algorithm {
        case .es256:
            var out: UnsafeMutablePointer<UInt8>?
            let length = EVP_PKEY_get1_encoded_public_key(pkey, &out)
            guard length > 0, let out else { return [] }
            defer { CRYPTO_free(out, #file, #line) }
            return Array(UnsafeBufferPointer(start: out, count: length))
        case .edDSA:
            var out = [UInt8](repeating: 0, count: 32)
            var length = 32
            guard EVP_PKEY_get_raw_public_key(pkey, &out, &length) == 1 else { return [] }
            return out
        }
    }

    /// The public key as a COSE_Key map (what authenticator data carries).
    public var coseKey: [(Int, COSEValue)] {
        let pub = publicKeyBytes
        switch algorithm {
        case .es256:
            return [
                (1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Array(pub[1..<33]))),
                (-3, .bytes(Array(pub[33..<65]))),
            ]
        case .edDSA:
            return [(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(pub))]
        }
    }

    /// Signs `message`: ES256 hashes with SHA-256 and returns a DER ECDSA signature; EdDSA signs the message itself.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        let md = algorithm == .es256 ? EVP_sha256() : nil
        guard EVP_DigestSignInit(ctx, nil, md, nil, pkey) == 1 else { throw CryptoError("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, message, message.count) == 1 else {
            throw CryptoError("EVP_DigestSign(size)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1 else {
            throw CryptoError("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }
}

/// A COSE_Key value: the few kinds a public key map holds.
public enum COSEValue: Sendable, Equatable {
    case int(Int)
    case bytes([UInt8])
}
