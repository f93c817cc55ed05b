#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a `TokenState` as the JSON its synthesized `Decodable` reads back (same keys and value shapes as
/// `JSONEncoder` with `.sortedKeys`: byte strings base64, nil optionals left out), by hand, one credential a line.
///
/// Why by hand: `JSONEncoder` over every credential made a save's cost grow with the token several times faster
/// (63 % of a get on a token holding 1,000 credentials, when a get still saved the whole file). The file stays
/// JSON so that people and the integration tests can read and edit it.
enum StateEncoder {
    /// Fails only if `JSONEncoder` fails on the configuration.
    static func encode(_ state: TokenState) throws -> [UInt8] {
        var object = JSONObjectWriter(indent: "  ", capacity: 4096 + 512 * state.credentials.count)
        if let certificate = state.attestationCertificate {
            object.field("attestationCertificate", base64: certificate)
        }
        if let key = state.attestationKey { object.field("attestationKey", base64: key) }
        object.field("configuration", raw: try jsonText(state.configuration))
        if let generation = state.counterGeneration { object.field("counterGeneration", string: generation) }
        object.field("creationCounter", int: state.creationCounter)
        object.key("credentials")
        appendCredentials(state.credentials, to: &object.out)
        object.field("format", string: state.format)
        object.key("largeBlobArray")
        JSONText.appendQuoted(state.largeBlobArray.base64EncodedString(), to: &object.out)
        object.field("notice", string: state.notice)
        if let settings = state.ownerSettings { object.field("ownerSettings", raw: try jsonText(settings)) }
        if let pinHash = state.pinHash { object.field("pinHash", base64: pinHash) }
        object.field("pinRetries", int: state.pinRetries)
        object.field("uvRetries", int: state.uvRetries)
        object.field("version", int: state.version)
        object.field("wrappingKey", base64: state.wrappingKey)
        return object.finish(newline: true)
    }

    private static let recordIndent = Array("\n    ".utf8)

    private static func appendCredentials(_ credentials: [StoredCredential], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, credential) in credentials.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += recordIndent
            out += encode(credential)
        }
        out += Array(credentials.isEmpty ? "]".utf8 : "\n  ]".utf8)
    }

    static func encode(_ credential: StoredCredential) -> [UInt8] {
        var object = JSONObjectWriter(indent: nil, capacity: 512)
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

    /// The configuration and the owner's settings are small, and the configuration has enum cases with payloads, so
    /// `JSONEncoder` writes them and their shape stays whatever their `Codable` conformance says. It keeps the pretty-printed layout of earlier files,
    /// one field a line, which people (and tests) edit by hand.
    private static func jsonText(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Nested one level deeper than JSONEncoder put it.
        return try encoder.encode(value).flatMap { $0 == UInt8(ascii: "\n") ? Array("\n  ".utf8) : [$0] }
    }
}

/// Appends `"key": value` pairs to a JSON object, either one a line (`indent`) or all on one line.
struct JSONObjectWriter {
    var out: [UInt8] = []
    private let indent: [UInt8]?
    private var empty = true

    init(indent: String?, capacity: Int) {
        self.indent = indent.map { Array($0.utf8) }
        out.reserveCapacity(capacity)
        out.append(UInt8(ascii: "{"))
    }

    /// Starts a field; its value is appended to `out` next.
    mutating func key(_ key: String) {
        if !empty { out.append(UInt8(ascii: ",")) }
        empty = false
        if let indent {
            out.append(UInt8(ascii: "\n"))
            out += indent
        }
        JSONText.appendQuoted(key, to: &out)
        out += Array((indent == nil ? ":" : " : ").utf8)
    }

    mutating func field(_ key: String, raw value: [UInt8]) {
        self.key(key)
        out += value
    }

    mutating func field(_ key: String, string value: String) {
        self.key(key)
        JSONText.appendQuoted(value, to: &out)
    }

    mutating func field(_ key: String, base64 value: Data) { field(key, string: value.base64EncodedString()) }

    mutating func field(_ key: String, int value: Int) {
        self.key(key)
        out += String(value).utf8
    }

    mutating func field(_ key: String, bool value: Bool) {
        self.key(key)
        out += (value ? "true" : "false").utf8
    }

    /// Closes the object and hands over the bytes (moved out, so a 1,000-credential state is not copied again).
    mutating func finish(newline: Bool) -> [UInt8] {
        if indent != nil, !empty { out.append(UInt8(ascii: "\n")) }
        out.append(UInt8(ascii: "}"))
        if newline { out.append(UInt8(ascii: "\n")) }
        defer { out = [] }
        return out
    }
}

/// JSON string literals (RFC 8259 §7): quote, backslash and control characters escaped, everything else as UTF-8.
enum JSONText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Base64, RP IDs and most names need no escaping: copy those whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text.utf8
        } else {
            for byte in text.utf8 { appendEscaped(byte, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
        case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0..<0x20:
            out += [
                UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)],
                hexDigits[Int(byte & 0x0F)],
            ]
        default: out.append(byte)
        }
    }
}
