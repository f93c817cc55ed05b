/// A CBOR data item, as CTAP2 uses them (RFC 8949 subset: no floats, tags or indefinite lengths on output).
///
/// Map keys are kept in the order given; `encode()` writes them in CTAP2 canonical order
/// (shorter encoded key first, then bytewise), which is what authenticators and libfido2 expect.
/// `.raw` splices bytes that are already CBOR (e.g. libfido2's attStmt) without re-encoding them.
public indirect enum CBOR: Sendable, Hashable {
    case unsigned(UInt64)
    /// A negative integer stored as in CBOR: the value is `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([(CBOR, CBOR)])
    case bool(Bool)
    case null
    case undefined
    case tagged(UInt64, CBOR)
    case simple(UInt8)
    /// Decoded floats are kept as their bit pattern (CTAP never needs them; they only must not break decoding).
    case float(UInt64)
    /// Already-encoded CBOR, written verbatim.
    case raw([UInt8])

    public static func int(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool { lhs.encode() == rhs.encode() }
    public func hash(into hasher: inout Hasher) { hasher.combine(encode()) }
}

// MARK: - Accessors

extension CBOR {
    /// The integer value when it fits in `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let v): return v <= UInt64(Int.max) ? Int(v) : nil
        case .negative(let v): return v <= UInt64(Int.max) ? -1 - Int(v) : nil
        default: return nil
        }
    }
    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }
    public var textValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var arrayValue: [CBOR]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var mapValue: [(CBOR, CBOR)]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// Looks up a map entry by key; nil when this is not a map or the key is absent.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.0 == key })?.1
    }
    public subscript(int key: Int) -> CBOR? { self[.int(key)] }
    public subscript(text key: String) -> CBOR? { self[.text(key)] }
}

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral
{
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
}
