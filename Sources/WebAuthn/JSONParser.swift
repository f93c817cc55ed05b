/// Why a frame is not acceptable JSON. `offset` is the byte position where parsing stopped, for the log line.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case empty
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidNumber
        case invalidEscape
        case invalidUTF8
        /// RFC 8259 requires U+0000–U+001F inside strings to be escaped.
        case unescapedControlCharacter
        case trailingContent
        case tooDeep
        /// Two members with one name: JavaScript keeps the last, other parsers the first. We refuse rather than
        /// guess which one the sender meant.
        case duplicateKey(String)
        /// `{binaryKey: x}` where x is not a base64url string.
        case invalidBinary
    }

    public let reason: Reason
    public let offset: Int
    /// Where in the document: member names and array indexes from the top, e.g. options.allowCredentials[0].id.
    public internal(set) var path: [String] = []

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    var pathDescription: String {
        path.reduce("") { text, step in step.hasPrefix("[") || text.isEmpty ? text + step : text + "." + step }
    }

    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "empty input"
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedByte(let b):
            what =
                b >= 0x20 && b < 0x7F
                ? "unexpected character '\(Character(Unicode.Scalar(b)))'" : "unexpected byte 0x\(String(b, radix: 16))"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape sequence"
        case .invalidUTF8: what = "invalid UTF-8"
        case .unescapedControlCharacter: what = "unescaped control character in string"
        case .trailingContent: what = "content after the JSON value"
        case .tooDeep: what = "nesting deeper than \(JSONValue.maxDepth) levels"
        case .duplicateKey(let key): what = "duplicate member \"\(key)\""
        case .invalidBinary: what = "\(JSONValue.binaryKey) value is not base64url"
        }
        return "invalid JSON at byte \(offset)\(path.isEmpty ? "" : " (in \(pathDescription))"): \(what)"
    }
}

extension JSONError {
    /// The same error, one level further out: `step` is the member name or `[index]` it was found under.
    func within(_ step: String) -> JSONError {
        var outer = self
        outer.path.insert(step, at: 0)
        return outer
    }
}

extension JSONValue {
    /// Arrays and objects nested deeper than this are refused, so a hostile frame cannot exhaust the stack.
    public static let maxDepth = 64

    /// Parses one JSON text (RFC 8259, strict: no comments, no trailing commas, no BOM, no NaN), turning every
    /// `{binaryKey: "<base64url>"}` into `.binary`. Lone UTF-16 surrogates in `\u` escapes become U+FFFD, as
    /// WebIDL's USVString conversion would make them; everything else malformed is a `JSONError`.
    public static func parse(_ utf8: [UInt8]) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = utf8.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(input: buffer)
            do throws(JSONError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public static func parse(_ text: String) throws(JSONError) -> JSONValue { try parse(Array(text.utf8)) }
}

/// A recursive-descent parser over the frame's bytes. Every read is bounds-checked through `peek`.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(input: UnsafeBufferPointer<UInt8>) { self.input = input }

    func fail(_ reason: JSONError.Reason) -> JSONError { JSONError(reason, at: offset) }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard offset < input.count else { throw fail(input.isEmpty ? .empty : .unexpectedEnd) }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard offset == input.count else { throw fail(.trailingContent) }
        return value
    }

    mutating func skipWhitespace() {
        while offset < input.count {
            switch input[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    func peek() throws(JSONError) -> UInt8 {
        guard offset < input.count else { throw fail(.unexpectedEnd) }
        return input[offset]
    }

    mutating func expect(_ byte: UInt8) throws(JSONError) {
        let found = try peek()
        guard found == byte else { throw fail(.unexpectedByte(found)) }
        offset += 1
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        let byte = try peek()
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail(.unexpectedByte(byte))
        }
    }

    mutating func parseLiteral(_ word: StaticString) throws(JSONError) {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            let found = try peek()
            guard found == expected else { throw fail(.unexpectedByte(found)) }
            offset += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail(.tooDeep) }
        offset += 1  // {
        var members: [(String, JSONValue)] = []
        // Duplicate names are found by a scan while the object is small (most are: descriptors), which
        // spares a hash table per object; a Set takes over past `smallObject` members.
        var names: Set<String>? = nil
        let smallObject = 8
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let keyOffset = offset
            let found = try peek()
            guard found == UInt8(ascii: "\"") else { throw fail(.unexpectedByte(found)) }
            let key = try parseString()
            let duplicate: Bool
            if members.count < smallObject {
                duplicate = members.contains { $0.0 == key }
            } else {
                var seen = names.take() ?? Set(members.map(\.0))
                duplicate = !seen.insert(key).inserted
                names = seen
            }
            guard !duplicate else { throw JSONError(.duplicateKey(key), at: keyOffset) }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let valueOffset = offset
            let value: JSONValue
            do { value = try parseValue(depth: depth) } catch { throw error.within(key) }
            members.append((key, value))
            if try endOfMembers() {
                if members.count == 1, key == JSONValue.binaryKey {
                    guard case .string(let text) = value, let bytes = Base64URL.decode(text) else {
                        throw JSONError(.invalidBinary, at: valueOffset)
                    }
                    return .binary(bytes)
                }
                return .object(members)
            }
        }
    }

    /// After an object member: true at the closing brace, false at a comma; anything else is an error.
    mutating func endOfMembers() throws(JSONError) -> Bool {
        skipWhitespace()
        let separator = try peek()
        offset += 1
        if separator == UInt8(ascii: "}") { return true }
        guard separator == UInt8(ascii: ",") else {
            offset -= 1
            throw fail(.unexpectedByte(separator))
        }
        return false
    }

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw fail(.tooDeep) }
        offset += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            do { items.append(try parseValue(depth: depth)) } catch { throw error.within("[\(items.count)]") }
            skipWhitespace()
            let separator = try peek()
            offset += 1
            if separator == UInt8(ascii: "]") { return .array(items) }
            guard separator == UInt8(ascii: ",") else {
                offset -= 1
                throw fail(.unexpectedByte(separator))
            }
        }
    }

    /// RFC 8259 number grammar, converted by the standard library (correctly rounded). Values too large for a
    /// Double are refused. (A path for short integers was measured and dropped: the bench's codec ran 6.779 G
    /// instructions with it, 6.782 G without, under callgrind: frames carry few numbers.)
    mutating func parseNumber() throws(JSONError) -> Double {
        let start = offset
        if input[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < input.count, isDigit(input[offset]) else { throw fail(.invalidNumber) }
        if input[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            skipDigits()
        }
        if offset < input.count, input[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < input.count, isDigit(input[offset]) else { throw fail(.invalidNumber) }
            skipDigits()
        }
        if offset < input.count, input[offset] == UInt8(ascii: "e") || input[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < input.count, input[offset] == UInt8(ascii: "+") || input[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < input.count, isDigit(input[offset]) else { throw fail(.invalidNumber) }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONError(.invalidNumber, at: start) }
        return value
    }

    mutating func skipDigits() {
        while offset < input.count, isDigit(input[offset]) { offset += 1 }
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Parses a string starting at its opening quote. Runs without escapes are copied in one piece, and only text
    /// that is not plain ASCII goes through UTF-8 validation.
    mutating func parseString() throws(JSONError) -> String {
        offset += 1  // opening quote
        let start = offset
        var decoded: [UInt8]? = nil
        var runStart = offset
        var allBits: UInt8 = 0  // any byte ≥ 0x80 sets the top bit: the string is not plain ASCII
        while true {
            guard offset < input.count else { throw fail(.unexpectedEnd) }
            let byte = input[offset]
            allBits |= byte
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: input[runStart..<offset])
                offset += 1
                // ASCII is valid UTF-8 as it stands, which spares the generic validating initializer (most
                // names, types and base64url text of a frame are ASCII). Kept for its figure: the bench's codec
                // (64-entry list, 1 MiB binary) ran 6.78 G instructions with it, 8.10 G without, under callgrind.
                if decoded == nil, allBits < 0x80 {
                    return String(decoding: run, as: UTF8.self)
                }
                if var bytes = decoded {
                    bytes.append(contentsOf: run)
                    guard let text = String(validating: bytes, as: UTF8.self) else {
                        throw JSONError(.invalidUTF8, at: start)
                    }
                    return text
                }
                guard let text = String(validating: run, as: UTF8.self) else {
                    throw JSONError(.invalidUTF8, at: start)
                }
                return text
            }
            if byte == UInt8(ascii: "\\") {
                var unescaped = decoded.take() ?? []
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<offset]))
                offset += 1
                try parseEscape(into: &unescaped)
                decoded = unescaped
                runStart = offset
                continue
            }
            guard byte >= 0x20 else { throw fail(.unescapedControlCharacter) }
            offset += 1
        }
    }

    /// One escape after its backslash, appended as UTF-8.
    mutating func parseEscape(into out: inout [UInt8]) throws(JSONError) {
        let byte = try peek()
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalar: UInt32
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate counts only when a low surrogate escape follows at once.
                if offset + 1 < input.count, input[offset] == UInt8(ascii: "\\"), input[offset + 1] == UInt8(ascii: "u")
                {
                    let save = offset
                    offset += 2
                    let low = try parseHex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    } else {
                        scalar = 0xFFFD
                        offset = save
                    }
                } else {
                    scalar = 0xFFFD
                }
            case 0xDC00...0xDFFF: scalar = 0xFFFD
            default: scalar = UInt32(unit)
            }
            // Never nil: lone surrogates became U+FFFD above.
            Unicode.UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
        default:
            offset -= 1
            throw fail(.invalidEscape)
        }
    }

    mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard offset < input.count else { throw fail(.unexpectedEnd) }
            let byte = input[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }
}
