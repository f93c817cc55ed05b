import COpenSSL

/// A public key parsed and checked by OpenSSL, exportable as SubjectPublicKeyInfo DER
/// (what `AuthenticatorAttestationResponse.getPublicKey()` returns) and usable to verify signatures.
public final class PublicKey: @unchecked Sendable {
    let pkey: OpaquePointer
    /// The COSE algorithm this key was described with.
    public let algorithm: Int
    /// SubjectPublicKeyInfo DER when it was built here from a fixed-size key (then it is what OpenSSL would
    /// write, and writing it again is skipped); nil for keys parsed from DER.
    private let builtDER: [UInt8]?

    private init(pkey: OpaquePointer, algorithm: Int, builtDER: [UInt8]? = nil) {
        self.pkey = pkey
        self.algorithm = algorithm
        self.builtDER = builtDER
    }
    deinit { EVP_PKEY_free(pkey) }

    /// The EC curves a key can be imported on from its coordinates: OpenSSL's group name, and the DER prefix of
    /// SubjectPublicKeyInfo that the uncompressed point follows.
    enum Curve {
        case p256, p384

        var groupName: String { self == .p256 ? "P-256" : "P-384" }

        var spkiPrefix: [UInt8] {
            switch self {
            case .p256:
                return [
                    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
                    0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
                ]
            case .p384:
                return [
                    0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x05, 0x2B,
                    0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00,
                ]
            }
        }
    }

    // DER prefix of SubjectPublicKeyInfo for an Ed25519 key; the key bytes follow.
    static let ed25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// Parses SubjectPublicKeyInfo DER.
    public static func fromSPKI(_ der: [UInt8], algorithm: Int) throws(CryptoError) -> PublicKey {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw CryptoError("d2i_PUBKEY") }
        return PublicKey(pkey: key, algorithm: algorithm)
    }

    /// The subject key of an X.509 certificate (DER), as an attestation statement's x5c[0] carries it.
    public static func fromCertificate(_ der: [UInt8], algorithm: Int) throws(CryptoError) -> PublicKey {
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else { throw CryptoError("d2i_X509") }
        defer { X509_free(certificate) }
        guard let key = X509_get_pubkey(certificate) else { throw CryptoError("X509_get_pubkey") }
        return PublicKey(pkey: key, algorithm: algorithm)
    }

    /// An uncompressed P-256 point (0x04 ‖ x ‖ y), as CTAP's key agreement carries it.
    public static func p256(x: [UInt8], y: [UInt8]) throws(CryptoError) -> PublicKey {
        guard x.count == 32, y.count == 32 else { throw CryptoError("P-256 coordinates must be 32 bytes") }
        return try ecPoint(x: x, y: y, curve: .p256, algorithm: -7)
    }

    /// An EC public key imported from its coordinates; OpenSSL refuses a point that is not on the curve. This
    /// skips OpenSSL 3's DER decoder set-up, which cost about two thirds of the host's own time in a create.
    static func ecPoint(x: [UInt8], y: [UInt8], curve: Curve, algorithm: Int) throws(CryptoError) -> PublicKey {
        let point = [0x04] + x + y
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        let imported = "group".withCString { groupKey in
            "pub".withCString { pubKey in
                curve.groupName.withCString { groupName in
                    point.withUnsafeBufferPointer { bytes in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: groupName), 0),
                            OSSL_PARAM_construct_octet_string(
                                pubKey, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_PKEY_fromdata_init(ctx) == 1
                            && EVP_PKEY_fromdata(ctx, &key, publicKeySelection, &params) == 1
                    }
                }
            }
        }
        guard imported, let key else { throw CryptoError("EVP_PKEY_fromdata(\(curve.groupName))") }
        return PublicKey(pkey: key, algorithm: algorithm, builtDER: curve.spkiPrefix + point)
    }

    /// EVP_PKEY_PUBLIC_KEY, which Swift does not import (a macro of macros).
    static let publicKeySelection =
        OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY

    /// An Ed25519 key from its 32 bytes (OpenSSL checks nothing more here than its DER decoder would).
    static func ed25519(_ x: [UInt8], algorithm: Int) throws(CryptoError) -> PublicKey {
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, x.count) else {
            throw CryptoError("EVP_PKEY_new_raw_public_key")
        }
        return PublicKey(pkey: key, algorithm: algorithm, builtDER: ed25519Prefix + x)
    }

    /// Builds a key from a decoded COSE_Key (label → value). Supports EC2 P-256/P-384, OKP Ed25519 and RSA.
    public static func fromCOSE(_ cose: [Int: COSEValue]) throws(CryptoError) -> PublicKey {
        guard case .int(let kty)? = cose[1], case .int(let alg)? = cose[3] else {
            throw CryptoError("COSE key without kty/alg")
        }
        switch kty {
        case 2:
            guard case .int(let crv)? = cose[-1], case .bytes(let x)? = cose[-2], case .bytes(let y)? = cose[-3] else {
                throw CryptoError("EC2 COSE key fields")
            }
            switch (crv, x.count, y.count) {
            case (1, 32, 32): return try ecPoint(x: x, y: y, curve: .p256, algorithm: alg)
            case (2, 48, 48): return try ecPoint(x: x, y: y, curve: .p384, algorithm: alg)
            default: throw CryptoError("unsupported EC2 curve \(crv)")
            }
        case 1:
            guard case .int(6)? = cose[-1], case .bytes(let x)? = cose[-2], x.count == 32 else {
                throw CryptoError("OKP COSE key fields")
            }
            return try ed25519(x, algorithm: alg)
        case 3:
            guard case .bytes(let n)? = cose[-1], case .bytes(let e)? = cose[-2] else {
                throw CryptoError("RSA COSE key fields")
            }
            return try rsa(modulus: n, exponent: e, algorithm: alg)
        default:
            throw CryptoError("unsupported COSE key type \(kty)")
        }
    }

    static func rsa(modulus: [UInt8], exponent: [UInt8], algorithm: Int) throws(CryptoError) -> PublicKey {
        let spki = DER.sequence([
            DER.sequence([DER.objectIdentifier([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]), [0x05, 0x00]]),
            DER.bitString(DER.sequence([DER.unsignedInteger(modulus), DER.unsignedInteger(exponent)])),
        ])
        return try fromSPKI(spki, algorithm: algorithm)
    }

    public var spkiDER: [UInt8] {
        if let builtDER { return builtDER }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #file, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The uncompressed point for EC keys (65 bytes for P-256); empty otherwise.
    public var uncompressedPoint: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = EVP_PKEY_get1_encoded_public_key(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #file, #line) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// Verifies a signature over `message` (SHA-256 for ES256 and RS256, none for EdDSA, SHA-384 for ES384).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        let md: OpaquePointer?
        switch algorithm {
        case -8: md = nil
        case -35: md = EVP_sha384()
        default: md = EVP_sha256()
        }
        guard EVP_DigestVerifyInit(ctx, nil, md, nil, pkey) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature, signature.count, message, message.count) == 1
    }
}

/// ECDH on P-256, as CTAP's PIN/UV auth protocols use it.
public final class KeyAgreementKey: @unchecked Sendable {
    private let key: SigningKey

    public init() throws(CryptoError) { key = try SigningKey.generate(.es256) }

    /// Uncompressed public point (0x04 ‖ x ‖ y).
    public var publicPoint: [UInt8] { key.publicKeyBytes }

    /// The raw shared x-coordinate with the peer's public key.
    public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new(key.pkey, nil) else { throw CryptoError("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peer.pkey) == 1 else {
            throw CryptoError("EVP_PKEY_derive_set_peer")
        }
        var length = 0
        guard EVP_PKEY_derive(ctx, nil, &length) == 1 else { throw CryptoError("EVP_PKEY_derive(size)") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1 else { throw CryptoError("EVP_PKEY_derive") }
        return Array(secret.prefix(length))
    }
}
