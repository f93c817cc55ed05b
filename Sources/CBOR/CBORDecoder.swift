/// Why a byte string is not acceptable CBOR.
public enum CBORError: Error, Equatable, Sendable {
    case truncated
    case trailingBytes(Int)
    case unsupported(String)
    case invalidUTF8
    case tooDeep
}

extension CBOR {
    /// Decodes exactly one item; bytes left over are an error.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        var reader = CBORReader(bytes: bytes)
        let item = try reader.readItem(depth: 0)
        if reader.offset != bytes.count { throw .trailingBytes(bytes.count - reader.offset) }
        return item
    }

    /// Decodes one item from the front of `bytes` and says how many bytes it used
    /// (authenticator data carries CBOR followed by more CBOR).
    public static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (CBOR, Int) {
        var reader = CBORReader(bytes: Array(bytes))
        let item = try reader.readItem(depth: 0)
        return (item, reader.offset)
    }
}

/// A cursor over CBOR bytes. Lengths are checked before every read, so hostile input cannot trap.
struct CBORReader {
    let bytes: [UInt8]
    var offset = 0
    static let maxDepth = 16

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// ASCII is valid UTF-8 as it stands: nearly every CTAP text (map keys, "public-key", rp ids) is ASCII, and
    /// the generic validating initializer costs far more than one pass over the bytes.
    mutating func readText(_ count: UInt64) throws(CBORError) -> String {
        let raw = try take(count)
        if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    mutating func readBytes(_ count: UInt64) throws(CBORError) -> [UInt8] {
        Array(try take(count))
    }

    /// The next `count` bytes, which must all be there.
    private mutating func take(_ count: UInt64) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else { throw .truncated }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    mutating func readArgument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            var value: UInt64 = 0
            for _ in 0..<width { value = value << 8 | UInt64(try readByte()) }
            return value
        default: throw .unsupported("indefinite length or reserved additional info \(info)")
        }
    }

    mutating func readItem(depth: Int) throws(CBORError) -> CBOR {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1F
        if major == 7 { return try readSimple(info) }
        let argument = try readArgument(info)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try readBytes(argument))
        case 3: return .text(try readText(argument))
        case 4:
            guard argument <= UInt64(bytes.count - offset) else { throw .truncated }
            var items: [CBOR] = []
            for _ in 0..<argument { items.append(try readItem(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard argument <= UInt64(bytes.count - offset) else { throw .truncated }
            var entries: [(CBOR, CBOR)] = []
            for _ in 0..<argument {
                let key = try readItem(depth: depth + 1)
                let value = try readItem(depth: depth + 1)
                entries.append((key, value))
            }
            return .map(entries)
        default:
            return .tagged(argument, try readItem(depth: depth + 1))
        }
    }

    mutating func readSimple(_ info: UInt8) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24: return .simple(try readByte())
        case 25, 26, 27:
            let width = 1 << Int(info - 24)
            var bits: UInt64 = 0
            for _ in 0..<width { bits = bits << 8 | UInt64(try readByte()) }
            return .float(bits)
        default: throw .unsupported("break or reserved simple value \(info)")
        }
    }
}
