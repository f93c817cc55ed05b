/// Makes text from outside (a page's rp.id or user name, an error that quotes them, a key's answer) safe to
/// put in the host log and to print on a terminal: the one place that does it.
///
/// A raw newline in a log line would forge a whole line of its own, and ESC or BEL would reach the terminal of
/// whoever runs `webauthn-bridge log`. Such characters are written visibly instead: `\n`, `\r`, `\t`, `\x1b`
/// for other C0 controls and DEL, `\u2028` (`\U000e0001` beyond the BMP) for Unicode controls, format
/// characters (bidirectional overrides, zero-width ones), line and paragraph separators, private-use and
/// unassigned code points. Printable ASCII takes a single pass over the bytes and is returned as it is.
public enum LogText {
    /// `backslashes`: also write `\` as `\\`, so an escape seen in the log is always one the host wrote (the
    /// log writer does). The printer leaves them alone, so printing an escaped line changes nothing.
    public static func escaped(_ text: String, backslashes: Bool = true) -> String {
        if isPrintableASCII(text, backslashes: backslashes) { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\" where backslashes: result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{00}"..."\u{1F}", "\u{7F}": result += "\\x" + hex(scalar.value, digits: 2)
            case _ where scalar.value < 0x80 || !isInvisible(scalar): result.unicodeScalars.append(scalar)
            case _ where scalar.value <= 0xFFFF: result += "\\u" + hex(scalar.value, digits: 4)
            default: result += "\\U" + hex(scalar.value, digits: 8)
            }
        }
        return result
    }

    /// The common case, checked over the string's own UTF-8 storage in one pass.
    private static func isPrintableASCII(_ text: String, backslashes: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where byte < 0x20 || byte > 0x7E || (byte == 0x5C && backslashes) { return false }
            return true
        }
    }

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
