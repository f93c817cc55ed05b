import WebAuthn

/// base64url (no padding), the encoding of every `__binary__` value: decoding arbitrary text never crashes,
/// a decoded value has the length its text implies, and encoding any bytes decodes back to them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64URL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Base64URL.decode(text) {
        let count = text.utf8.count
        precondition(decoded.count == count / 4 * 3 + max(0, count % 4 - 1), "decoded length does not match")
        precondition(Base64URL.decode(Base64URL.encode(decoded)) == decoded, "re-encoding changed the value")
    }
    let encoded = Base64URL.encode(bytes)
    precondition(encoded.utf8.count == (bytes.count * 4 + 2) / 3, "encoded length is not unpadded base64")
    precondition(Base64URL.decode(encoded) == bytes, "encode/decode round trip failed")
    return 0
}
