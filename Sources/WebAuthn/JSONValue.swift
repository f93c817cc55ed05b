/// A JSON document as the extension and the host exchange it.
///
/// `.binary` is not a JSON type: it stands for `{binaryKey: "<base64url>"}`, the protocol's encoding of every
/// BufferSource and ArrayBuffer, so the rest of the host never sees base64. Objects keep their members in order
/// (an array of pairs, not a dictionary) because output order makes frames and logs readable and because the
/// parser rejects duplicate names, so lookup by name is unambiguous. Not `indirect`: arrays already hold their
/// elements out of line, and boxing every value cost an allocation per value of a frame.
public enum JSONValue: Sendable, Equatable {
    /// The name that marks a binary value: an object with exactly this one member. The one place the host spells
    /// it; extension/common/protocol-constants.js is the extension's (`ProtocolConstantsTests` holds the two
    /// together).
    public static let binaryKey = "__binary__"

    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case binary([UInt8])
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// Structural equality; object members compare in order, since the parser keeps the sender's order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.binary(let a), .binary(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    public var binaryValue: [UInt8]? {
        if case .binary(let b) = self { return b }
        return nil
    }
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as an exact integer, when it is a number with no fractional part that fits in `Int`.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded(.towardZero) == n, abs(n) < 0x1p63 else { return nil }
        return Int(n)
    }

    /// The JSON type name, for error messages ("expected an object, found a string").
    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .binary: return "binary data"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keeps the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
