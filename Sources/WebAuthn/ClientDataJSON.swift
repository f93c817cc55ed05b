/// CollectedClientData's `type` member.
public enum ClientDataType: String, Sendable {
    case create = "webauthn.create"
    case get = "webauthn.get"
}

/// Builds clientDataJSON the way §5.8.1.1 "limited verification" expects and Chromium writes it: members in the
/// fixed order type, challenge, origin, crossOrigin (+ topOrigin when cross-origin), no whitespace, strings
/// escaped by the spec's CCDToString. Relying parties are told to parse it, yet some compare it against a
/// template, so the bytes must match a browser's exactly. Built by hand because a generic JSON encoder is free
/// to order or escape differently (Foundation's writes "\/").
public enum ClientDataJSON {
    public static func make(type: ClientDataType, challenge: [UInt8], caller: CallerOrigin) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + challenge.count * 4 / 3 + (caller.topOrigin?.utf8.count ?? 0))
        out.append(contentsOf: #"{"type":"#.utf8)
        appendCCDString(type.rawValue, to: &out)
        out.append(contentsOf: #","challenge":"#.utf8)
        appendCCDString(Base64URL.encode(challenge), to: &out)
        out.append(contentsOf: #","origin":"#.utf8)
        appendCCDString(caller.serialized, to: &out)
        if caller.isCrossOrigin, let topOrigin = caller.topOrigin {
            out.append(contentsOf: #","crossOrigin":true,"topOrigin":"#.utf8)
            appendCCDString(topOrigin, to: &out)
        } else {
            out.append(contentsOf: #","crossOrigin":false"#.utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// CCDToString: a quoted string where `"` and `\` are backslash-escaped, U+0000–U+001F become `\u00xx` with
    /// lowercase hex, and every other code point (including `/` and non-ASCII) is copied as UTF-8. Unlike a
    /// general JSON writer there are no short escapes such as `\n`.
    static func appendCCDString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
