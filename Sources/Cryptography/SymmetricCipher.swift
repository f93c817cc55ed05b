import COpenSSL

/// AES-256 in the two modes this project needs: CBC without padding (CTAP PIN protocols) and GCM
/// (SoftToken wraps non-resident private keys into credential ids).
public enum SymmetricCipher {
    public static func aes256CBC(encrypt: Bool, key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8]
    {
        guard key.count == 32, iv.count == 16, data.count % 16 == 0 else { throw CryptoError("AES-256-CBC arguments") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), nil, key, iv, encrypt ? 1 : 0) == 1 else {
            throw CryptoError("EVP_CipherInit_ex(AES-256-CBC)")
        }
        EVP_CIPHER_CTX_set_padding(ctx, 0)
        var out = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        guard EVP_CipherUpdate(ctx, &out, &written, data, Int32(data.count)) == 1 else {
            throw CryptoError("EVP_CipherUpdate")
        }
        let ok = out.withUnsafeMutableBufferPointer {
            EVP_CipherFinal_ex(ctx, $0.baseAddress?.advanced(by: Int(written)), &final)
        }
        guard ok == 1 else { throw CryptoError("EVP_CipherFinal_ex") }
        return Array(out.prefix(Int(written + final)))
    }

    /// AES-256-GCM seal: returns ciphertext ‖ 16-byte tag.
    public static func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8] = [])
        throws(CryptoError) -> [UInt8]
    {
        try gcm(encrypt: true, key: key, nonce: nonce, input: plaintext, aad: aad, tag: nil)
    }

    /// AES-256-GCM open of ciphertext ‖ tag; throws when the tag does not verify.
    public static func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], aad: [UInt8] = [])
        throws(CryptoError) -> [UInt8]
    {
        guard sealed.count >= 16 else { throw CryptoError("AES-256-GCM input too short") }
        return try gcm(
            encrypt: false, key: key, nonce: nonce, input: Array(sealed.dropLast(16)), aad: aad,
            tag: Array(sealed.suffix(16)))
    }

    private static func gcm(encrypt: Bool, key: [UInt8], nonce: [UInt8], input: [UInt8], aad: [UInt8], tag: [UInt8]?)
        throws(CryptoError) -> [UInt8]
    {
        guard key.count == 32, nonce.count == 12 else { throw CryptoError("AES-256-GCM arguments") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce, encrypt ? 1 : 0) == 1 else {
            throw CryptoError("EVP_CipherInit_ex(AES-256-GCM)")
        }
        var written: Int32 = 0
        if !aad.isEmpty, EVP_CipherUpdate(ctx, nil, &written, aad, Int32(aad.count)) != 1 {
            throw CryptoError("GCM AAD")
        }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        guard EVP_CipherUpdate(ctx, &out, &written, input, Int32(input.count)) == 1 else {
            throw CryptoError("EVP_CipherUpdate")
        }
        if var tag {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else {
                throw CryptoError("GCM set tag")
            }
        }
        var final: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer {
            EVP_CipherFinal_ex(ctx, $0.baseAddress?.advanced(by: Int(written)), &final)
        }
        guard ok == 1 else { throw CryptoError(encrypt ? "GCM seal" : "GCM tag verification") }
        var result = Array(out.prefix(Int(written + final)))
        if encrypt {
            var newTag = [UInt8](repeating: 0, count: 16)
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &newTag) == 1 else {
                throw CryptoError("GCM get tag")
            }
            result += newTag
        }
        return result
    }
}
