import CBOR

/// The CBOR decoder every CTAP message and COSE key goes through. Checked beyond "no crash": a decoded item
/// encodes to bytes that decode to the same item, and `decodePrefix` agrees with `decode` on what it consumed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let item = try? CBOR.decode(bytes) {
        let encoded = item.encode()
        guard let again = try? CBOR.decode(encoded) else { preconditionFailure("re-encoded CBOR does not decode") }
        precondition(again.encode() == encoded, "CBOR encoding is not stable")
    }
    if let (item, used) = try? CBOR.decodePrefix(bytes[...]) {
        precondition(used > 0 && used <= bytes.count, "decodePrefix consumed \(used) of \(bytes.count) bytes")
        let alone = try? CBOR.decode(Array(bytes[0..<used]))
        precondition(alone?.encode() == item.encode(), "decodePrefix and decode disagree")
    }
    return 0
}
