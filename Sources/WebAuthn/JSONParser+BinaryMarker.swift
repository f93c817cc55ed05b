import Glibc

extension JSONParser {
    /// `JSONValue.binaryKey` with its quotes.
    static let binaryMarkerName = Array("\"\(JSONValue.binaryKey)\"".utf8)

    /// The common shape of a binary value, `"binaryKey": "<base64url>" }` right after an object's `{`, decoded
    /// straight from the frame without building the member's name, its string or the object's member list: a
    /// list of a thousand credential ids is a thousand of these. Returns nil, with `offset` unchanged, for
    /// anything else (escapes, other members, a bad value, the end of input), which the general object
    /// parser then handles, refusing it with the usual error where it must.
    mutating func parsePlainBinaryMarker() -> [UInt8]? {
        let start = offset
        guard let bytes = scanPlainBinaryMarker() else {
            offset = start
            return nil
        }
        return bytes
    }

    private mutating func scanPlainBinaryMarker() -> [UInt8]? {
        guard skip(Self.binaryMarkerName) else { return nil }
        skipWhitespace()
        guard skip(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        guard skip(UInt8(ascii: "\"")) else { return nil }
        let textStart = offset
        // Only the closing quote is looked for here (memchr: the strings are long); decoding refuses anything
        // outside the alphabet (a backslash, a control character), and the general parser then reports it.
        guard let base = input.baseAddress,
            let quote = memchr(base + textStart, Int32(UInt8(ascii: "\"")), input.count - textStart)
        else { return nil }
        offset = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
        let text = UnsafeBufferPointer(rebasing: input[textStart..<offset])
        guard skip(UInt8(ascii: "\"")) else { return nil }
        skipWhitespace()
        guard skip(UInt8(ascii: "}")), let bytes = Base64URL.decode(utf8: text) else { return nil }
        return bytes
    }

    /// Consumes `byte` when it comes next.
    private mutating func skip(_ byte: UInt8) -> Bool {
        guard offset < input.count, input[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// Consumes `text` when it comes next.
    mutating func skip(_ text: StaticString) -> Bool {
        skip(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Consumes `bytes` when they come next.
    mutating func skip(_ bytes: some Collection<UInt8>) -> Bool {
        guard input.count - offset >= bytes.count, input[offset..<offset + bytes.count].elementsEqual(bytes) else {
            return false
        }
        offset += bytes.count
        return true
    }
}
