extension JSONValue {
    /// Compact JSON as UTF-8. `.binary` becomes `{binaryKey:"<base64url>"}`. Only what RFC 8259 requires is
    /// escaped (`"`, `\`, U+0000–U+001F) — never `/`, which Foundation's encoder escapes and some readers of our
    /// frames compare literally. Integral numbers below 2^53 print without a fraction ("-7", not "-7.0");
    /// non-finite numbers, which JSON cannot carry, print as `null` as JavaScript's JSON.stringify does.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    /// What a binary value's text starts with: `{"` + `binaryKey` + `":"`.
    static let binaryOpening = Array("{\"\(binaryKey)\":\"".utf8)

    /// `serialized()` as a String, for logs and tests.
    public var serializedString: String { String(decoding: serialized(), as: UTF8.self) }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): Self.writeNumber(n, to: &out)
        case .string(let s): Self.writeString(s, to: &out)
        case .binary(let bytes):
            out.append(contentsOf: Self.binaryOpening)
            out.append(contentsOf: Base64URL.encodeToUTF8(bytes))
            out.append(contentsOf: "\"}".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                member.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        if !n.isFinite {
            out.append(contentsOf: "null".utf8)
        } else if n.rounded(.towardZero) == n, abs(n) < 0x1p53 {
            out.append(contentsOf: String(Int64(n)).utf8)
        } else {
            // Swift prints the shortest round-tripping form ("0.1", "1e+300"), which is valid JSON.
            out.append(contentsOf: n.description.utf8)
        }
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 15)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
