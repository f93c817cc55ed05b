extension CBOR {
    /// The encoded bytes; maps in CTAP2 canonical key order.
    public func encode() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        append(to: &out)
        return out
    }

    func append(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let v): Self.appendHead(major: 0, v, to: &out)
        case .negative(let v): Self.appendHead(major: 1, v, to: &out)
        case .bytes(let b):
            Self.appendHead(major: 2, UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let s):
            let utf8 = Array(s.utf8)
            Self.appendHead(major: 3, UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            Self.appendHead(major: 4, UInt64(items.count), to: &out)
            for item in items { item.append(to: &out) }
        case .map(let entries):
            Self.appendHead(major: 5, UInt64(entries.count), to: &out)
            let encoded = entries.map { (key: $0.0.encode(), value: $0.1.encode()) }
            for entry in encoded.sorted(by: { Self.canonicalLess($0.key, $1.key) }) {
                out.append(contentsOf: entry.key)
                out.append(contentsOf: entry.value)
            }
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .tagged(let tag, let item):
            Self.appendHead(major: 6, tag, to: &out)
            item.append(to: &out)
        case .simple(let v):
            if v < 24 { out.append(0xE0 | v) } else { out.append(contentsOf: [0xF8, v]) }
        case .float(let bits):
            out.append(0xFB)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
            }
        case .raw(let bytes): out.append(contentsOf: bytes)
        }
    }

    /// CTAP2 canonical order: shorter encoding first, then lexicographic bytes.
    static func canonicalLess(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    static func appendHead(major: UInt8, _ value: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch value {
        case 0..<24: out.append(m | UInt8(value))
        case 24...0xFF: out.append(contentsOf: [m | 24, UInt8(value)])
        case 0x100...0xFFFF: out.append(contentsOf: [m | 25, UInt8(value >> 8), UInt8(value & 0xFF)])
        case 0x10000...0xFFFF_FFFF:
            out.append(m | 26)
            for shift in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        default:
            out.append(m | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
    }
}
