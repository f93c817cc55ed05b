import Foundation

/// Writes a `TokenState` as the JSON its synthesized `Decodable` reads back (same keys and value shapes as
/// `JSONEncoder` with `.sortedKeys`: byte strings base64, nil optionals left out), by hand, one credential a line,
/// reusing each credential's text from the previous save.
///
/// Why by hand: re-encoding every credential with `JSONEncoder` on every save made a ceremony's cost grow with
/// the token (63 % of a get on a token holding 1,000 credentials). A cached text is reused only while its record
/// is still equal to the one it was made from, so no code path that edits a record can forget to invalidate it.
/// The file stays JSON so that people and the integration tests can read and edit it.
struct StateEncoder {
    private var records: [(record: StoredCredential, text: [UInt8])] = []
    private var configuration: (value: SoftTokenConfiguration, text: [UInt8])?
    private var largeBlob: (value: Data, text: [UInt8])?

    mutating func encode(_ state: TokenState) throws(SoftTokenError) -> [UInt8] {
        var object = JSONObjectWriter(indent: "  ")
        if let certificate = state.attestationCertificate { object.field("attestationCertificate", base64: certificate) }
        if let key = state.attestationKey { object.field("attestationKey", base64: key) }
        object.field("configuration", raw: try configurationText(state.configuration))
        if let generation = state.counterGeneration { object.field("counterGeneration", string: generation) }
        object.field("creationCounter", int: state.creationCounter)
        object.field("credentials", raw: credentialsText(state.credentials))
        object.field("format", string: state.format)
        object.field("largeBlobArray", raw: largeBlobText(state.largeBlobArray))
        object.field("notice", string: state.notice)
        if let pinHash = state.pinHash { object.field("pinHash", base64: pinHash) }
        object.field("pinRetries", int: state.pinRetries)
        object.field("uvRetries", int: state.uvRetries)
        object.field("version", int: state.version)
        object.field("wrappingKey", base64: state.wrappingKey)
        return object.finish(newline: true)
    }

    private mutating func credentialsText(_ credentials: [StoredCredential]) -> [UInt8] {
        guard !credentials.isEmpty else { return Array("[]".utf8) }
        var out = Array("[\n".utf8)
        out.reserveCapacity(credentials.count * (records.first?.text.count ?? 256) + 16)
        for (index, credential) in credentials.enumerated() {
            if index > 0 { out += Array(",\n".utf8) }
            out += Array("    ".utf8)
            out += recordText(credential, at: index)
        }
        if records.count > credentials.count { records.removeLast(records.count - credentials.count) }
        out += Array("\n  ]".utf8)
        return out
    }

    private mutating func recordText(_ credential: StoredCredential, at index: Int) -> [UInt8] {
        if index < records.count, records[index].record == credential { return records[index].text }
        let text = Self.encode(credential)
        if index < records.count { records[index] = (credential, text) } else { records.append((credential, text)) }
        return text
    }

    static func encode(_ credential: StoredCredential) -> [UInt8] {
        var object = JSONObjectWriter(indent: nil)
        object.field("algorithm", int: credential.algorithm)
        object.field("created", int: credential.created)
        object.field("credProtect", int: credential.credProtect)
        object.field("discoverable", bool: credential.discoverable)
        object.field("id", base64: credential.id)
        object.field("rpID", string: credential.rpID)
        if let rpName = credential.rpName { object.field("rpName", string: rpName) }
        object.field("signCount", int: Int(credential.signCount))
        if let name = credential.userDisplayName { object.field("userDisplayName", string: name) }
        object.field("userID", base64: credential.userID)
        if let name = credential.userName { object.field("userName", string: name) }
        return object.finish(newline: false)
    }

    /// The configuration is small, rarely changes and has enum cases with payloads, so `JSONEncoder` writes it
    /// (once per change) and its shape stays whatever the synthesized `Codable` conformance says. It keeps the
    /// pretty-printed layout of earlier files, one field a line, which people (and tests) edit by hand.
    private mutating func configurationText(_ value: SoftTokenConfiguration) throws(SoftTokenError) -> [UInt8] {
        if let configuration, configuration.value == value { return configuration.text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do { json = try encoder.encode(value) } catch { throw .cannotWrite(path: "", step: "encode", errno: EINVAL) }
        // Nested one level deeper than JSONEncoder put it.
        let text = json.flatMap { $0 == UInt8(ascii: "\n") ? Array("\n  ".utf8) : [$0] }
        configuration = (value, text)
        return text
    }

    /// Up to `maxSerializedLargeBlobArray` bytes (the benchmark uses 1 MiB), so its base64 is kept too.
    private mutating func largeBlobText(_ value: Data) -> [UInt8] {
        if let largeBlob, largeBlob.value == value { return largeBlob.text }
        let text = JSONText.quoted(value.base64EncodedString())
        largeBlob = (value, text)
        return text
    }
}

/// Appends `"key": value` pairs to a JSON object, either one a line (`indent`) or all on one line.
struct JSONObjectWriter {
    private var out: [UInt8] = [UInt8(ascii: "{")]
    private let indent: [UInt8]?
    private var empty = true

    init(indent: String?) { self.indent = indent.map { Array($0.utf8) } }

    mutating func field(_ key: String, raw value: [UInt8]) {
        if !empty { out.append(UInt8(ascii: ",")) }
        empty = false
        if let indent {
            out.append(UInt8(ascii: "\n"))
            out += indent
        }
        out += JSONText.quoted(key)
        out += Array((indent == nil ? ":" : " : ").utf8)
        out += value
    }

    mutating func field(_ key: String, string value: String) { field(key, raw: JSONText.quoted(value)) }
    mutating func field(_ key: String, base64 value: Data) { field(key, raw: JSONText.quoted(value.base64EncodedString())) }
    mutating func field(_ key: String, int value: Int) { field(key, raw: Array(String(value).utf8)) }
    mutating func field(_ key: String, bool value: Bool) { field(key, raw: Array((value ? "true" : "false").utf8)) }

    func finish(newline: Bool) -> [UInt8] {
        var result = out
        if indent != nil, !empty { result.append(UInt8(ascii: "\n")) }
        result.append(UInt8(ascii: "}"))
        if newline { result.append(UInt8(ascii: "\n")) }
        return result
    }
}

/// JSON string literals (RFC 8259 §7): quote, backslash and control characters escaped, everything else as UTF-8.
enum JSONText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func quoted(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}
