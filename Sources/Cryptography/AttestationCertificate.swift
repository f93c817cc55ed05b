import COpenSSL

/// Self-signed X.509 certificates for authenticator attestation keys ("packed" attestation with x5c).
///
/// Only what a FIDO "packed" attestation certificate needs (WebAuthn §8.2.1): version 3, subject C/O/OU/CN with
/// OU "Authenticator Attestation", basic constraints CA:FALSE, and the FIDO AAGUID extension
/// (1.3.6.1.4.1.45724.1.1.4). Built through libcrypto's X509 API; nothing is encoded by hand except the
/// AAGUID extension's inner OCTET STRING header.
public enum AttestationCertificate {
    /// DER of a certificate for `key`, signed by `key` itself, valid from now for `days`.
    public static func selfSigned(key: SigningKey, commonName: String, aaguid: [UInt8], days: Int = 3650)
        throws(CryptoError) -> [UInt8]
    {
        guard key.algorithm == .es256 else { throw CryptoError("attestation certificates need an ES256 key") }
        guard aaguid.count == 16 else { throw CryptoError("AAGUID must be 16 bytes") }
        guard let certificate = X509_new() else { throw CryptoError("X509_new") }
        defer { X509_free(certificate) }
        guard X509_set_version(certificate, 2) == 1 else { throw CryptoError("X509_set_version") }
        let serial = Digest.randomBytes(8)
        let serialValue = serial.reduce(0) { ($0 << 8) | Int($1) } & 0x3FFF_FFFF_FFFF_FFFF
        guard ASN1_INTEGER_set(X509_get_serialNumber(certificate), serialValue | 1) == 1 else {
            throw CryptoError("serial")
        }
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), 0) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86400) != nil
        else { throw CryptoError("validity") }

        guard let name = X509_get_subject_name(certificate) else { throw CryptoError("X509_get_subject_name") }
        for (field, value) in [
            ("C", "US"), ("O", "webauthn-bridge"), ("OU", "Authenticator Attestation"), ("CN", commonName),
        ] {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw CryptoError("X509_NAME_add_entry_by_txt(\(field))")
            }
        }
        guard X509_set_issuer_name(certificate, name) == 1 else { throw CryptoError("X509_set_issuer_name") }
        guard X509_set_pubkey(certificate, key.pkey) == 1 else { throw CryptoError("X509_set_pubkey") }

        guard let basicConstraints = X509V3_EXT_conf_nid(nil, nil, NID_basic_constraints, "critical,CA:FALSE") else {
            throw CryptoError("basic constraints")
        }
        defer { X509_EXTENSION_free(basicConstraints) }
        guard X509_add_ext(certificate, basicConstraints, -1) == 1 else {
            throw CryptoError("X509_add_ext(basicConstraints)")
        }

        guard let oid = OBJ_txt2obj("1.3.6.1.4.1.45724.1.1.4", 1) else { throw CryptoError("OBJ_txt2obj") }
        defer { ASN1_OBJECT_free(oid) }
        guard let value = ASN1_OCTET_STRING_new() else { throw CryptoError("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        let inner: [UInt8] = [0x04, 0x10] + aaguid
        guard ASN1_OCTET_STRING_set(value, inner, Int32(inner.count)) == 1,
            let aaguidExtension = X509_EXTENSION_create_by_OBJ(nil, oid, 0, value)
        else { throw CryptoError("AAGUID extension") }
        defer { X509_EXTENSION_free(aaguidExtension) }
        guard X509_add_ext(certificate, aaguidExtension, -1) == 1 else { throw CryptoError("X509_add_ext(aaguid)") }

        guard X509_sign(certificate, key.pkey, EVP_sha256()) > 0 else { throw CryptoError("X509_sign") }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &out)
        guard length > 0, let out else { throw CryptoError("i2d_X509") }
        defer { CRYPTO_free(out, #file, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
