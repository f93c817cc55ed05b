/// WebIDL dictionary conversion over the JSON the extension forwarded, with errors that name the member by its
/// path ("user.id", "pubKeyCredParams[2].alg") so a developer reading the console knows what to fix.
///
/// Rules applied (WebIDL §3.2.17 and the types WebAuthn uses):
/// - a dictionary given as null or absent is an empty dictionary; anything but an object is a TypeError;
/// - a member that is absent or null counts as not present (JSON has no `undefined`; JSON.stringify drops it);
/// - BufferSource members must arrive as binary values (`JSONValue.binaryKey`);
/// - `long` / `unsigned long` take any finite number, truncated and wrapped modulo 2^32 as WebIDL does;
/// - DOMString and boolean members must have that JSON type (see the module note on coercion).
struct OptionsReader {
    let members: [(String, JSONValue)]
    /// Where this dictionary sits, for messages.
    let path: OptionsPath

    init(_ value: JSONValue?, path: String) throws(WebAuthnError) {
        try self.init(value, path: OptionsPath(path))
    }

    init(_ value: JSONValue?, path: OptionsPath) throws(WebAuthnError) {
        self.path = path
        switch value {
        case nil, .null?: members = []
        case .object(let m)?: members = m
        case let other?:
            let text = path.description
            throw .typeError("\(text.isEmpty ? "options" : text) must be a dictionary, found \(other.typeName)")
        }
    }

    /// The member's path for messages: "user.id", "pubKeyCredParams[2].alg".
    func name(_ member: String) -> String {
        let text = path.description
        return text.isEmpty ? member : text + "." + member
    }

    /// The member's value; nil when absent or null.
    func value(_ member: String) -> JSONValue? {
        guard let found = members.first(where: { $0.0 == member })?.1, !found.isNull else { return nil }
        return found
    }

    func has(_ member: String) -> Bool { value(member) != nil }

    func dictionary(_ member: String, required: Bool = false) throws(WebAuthnError) -> OptionsReader {
        if required, !has(member) { throw .typeError("\(name(member)) is required") }
        return try OptionsReader(value(member), path: name(member))
    }

    func string(_ member: String) throws(WebAuthnError) -> String? {
        guard let found = value(member) else { return nil }
        guard case .string(let s) = found else {
            throw .typeError("\(name(member)) must be a string, found \(found.typeName)")
        }
        return s
    }

    func requiredString(_ member: String) throws(WebAuthnError) -> String {
        guard let s = try string(member) else { throw .typeError("\(name(member)) is required") }
        return s
    }

    func bufferSource(_ member: String) throws(WebAuthnError) -> [UInt8]? {
        guard let found = value(member) else { return nil }
        guard case .binary(let bytes) = found else {
            throw .typeError(
                "\(name(member)) must be a BufferSource (ArrayBuffer or typed array), found \(found.typeName)")
        }
        return bytes
    }

    func requiredBufferSource(_ member: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = try bufferSource(member) else { throw .typeError("\(name(member)) is required") }
        return bytes
    }

    func bool(_ member: String) throws(WebAuthnError) -> Bool? {
        guard let found = value(member) else { return nil }
        guard case .bool(let b) = found else {
            throw .typeError("\(name(member)) must be a boolean, found \(found.typeName)")
        }
        return b
    }

    /// WebIDL `unsigned long`: NaN and infinities become 0, the rest is truncated and taken modulo 2^32.
    func unsignedLong(_ member: String) throws(WebAuthnError) -> Int? {
        guard let number = try number(member) else { return nil }
        return Int(Self.modulo32(number))
    }

    /// WebIDL `long`: as `unsigned long`, then values of 2^31 and above wrap to negative.
    func long(_ member: String) throws(WebAuthnError) -> Int? {
        guard let number = try number(member) else { return nil }
        let wrapped = Self.modulo32(number)
        return wrapped >= 0x8000_0000 ? Int(wrapped) - 0x1_0000_0000 : Int(wrapped)
    }

    func number(_ member: String) throws(WebAuthnError) -> Double? {
        guard let found = value(member) else { return nil }
        guard case .number(let n) = found else {
            throw .typeError("\(name(member)) must be a number, found \(found.typeName)")
        }
        return n
    }

    static func modulo32(_ n: Double) -> UInt64 {
        guard n.isFinite else { return 0 }
        let truncated = n.rounded(.towardZero)
        let remainder = truncated.truncatingRemainder(dividingBy: 4_294_967_296)
        let positive = remainder < 0 ? remainder + 4_294_967_296 : remainder
        return UInt64(positive)
    }

    /// A `sequence<…>` member as its elements; each is converted by `convert` with its indexed path.
    func sequence<T>(
        _ member: String, _ convert: (JSONValue, OptionsPath) throws(WebAuthnError) -> T?
    ) throws(WebAuthnError) -> [T]? {
        guard let found = value(member) else { return nil }
        let sequenceName = name(member)
        guard case .array(let items) = found else {
            throw .typeError("\(sequenceName) must be a sequence, found \(found.typeName)")
        }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let converted = try convert(item, OptionsPath(sequenceName, index: index)) { out.append(converted) }
        }
        return out
    }

    /// How many elements the page listed in a sequence member (0 when absent or not an array), before any is
    /// dropped in conversion.
    func listedCount(_ member: String) -> Int {
        value(member)?.arrayValue?.count ?? 0
    }

    /// `sequence<DOMString>`.
    func strings(_ member: String) throws(WebAuthnError) -> [String]? {
        try sequence(member) { (item, path) throws(WebAuthnError) -> String? in
            guard case .string(let s) = item else {
                throw .typeError("\(path) must be a string, found \(item.typeName)")
            }
            return s
        }
    }

    /// `sequence<PublicKeyCredentialDescriptor>`, keeping only type "public-key" (§5.8.3: clients ignore
    /// descriptors of types they do not know) after the required members were checked.
    func descriptors(_ member: String) throws(WebAuthnError) -> [PublicKeyCredentialDescriptor] {
        try sequence(member) { (item, path) throws(WebAuthnError) -> PublicKeyCredentialDescriptor? in
            if let plain = Self.plainDescriptor(item) {
                return plain.type == "public-key" ? PublicKeyCredentialDescriptor(id: plain.id, transports: []) : nil
            }
            let entry = try OptionsReader(item, path: path)
            let type = try entry.requiredString("type")
            let id = try entry.requiredBufferSource("id")
            let transports = try entry.strings("transports") ?? []
            return type == "public-key" ? PublicKeyCredentialDescriptor(id: id, transports: transports) : nil
        } ?? []
    }

    /// An entry that is exactly {"type": <string>, "id": <binary>}, as the extension sends every entry of a long
    /// list: it passes every check of `descriptors` by its shape, so it is taken without looking members up by name.
    static func plainDescriptor(_ item: JSONValue) -> (type: String, id: [UInt8])? {
        guard case .object(let members) = item, members.count == 2, members[0].0 == "type", members[1].0 == "id",
            case .string(let type) = members[0].1, case .binary(let id) = members[1].1
        else { return nil }
        return (type, id)
    }

    /// The `extensions` member, kept as JSON for the extension mapping to interpret.
    func extensions() throws(WebAuthnError) -> JSONValue? {
        guard let found = value("extensions") else { return nil }
        guard case .object = found else {
            throw .typeError("\(name("extensions")) must be a dictionary, found \(found.typeName)")
        }
        return found
    }
}
