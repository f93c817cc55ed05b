import CBOR
import CTAP
import Threading

/// Turns libfido2's debug output into the host's trace: function lines pass through, raw hex dumps never do
/// (they carry encrypted PIN material, pinUvAuthParams, hmac-secret salts and outputs, large blobs), and each
/// CTAP request/response payload is shown decoded, with those secret-bearing fields redacted.
public final class CTAPTrace: Sendable {
    private struct State {
        var transmitCommand: UInt8 = 0
        var receiveCommand: UInt8 = 0
        /// The CTAP command of the last request, to name the response that follows.
        var lastRequest: UInt8 = 0
        var collecting: (outbound: Bool, expected: Int, bytes: [UInt8])?
    }

    /// A thread's frame in the making. libfido2 logs on the thread that makes the call, and keys that race run on
    /// threads of their own (`KeyRace`), so each thread's lines are assembled apart: one key's hex must never
    /// complete another key's frame, where it would be decoded under the other command's redaction rules.
    private final class Frames {
        var state = State()
    }

    private let frames = ThreadLocal<Frames>()

    public init() {}

    /// Feeds one libfido2 line (on the thread libfido2 logged it from); returns the lines to log (none for a hex
    /// dump, one for a decoded payload).
    public func lines(for line: String) -> [String] {
        let current = frames.value ?? Frames()
        if frames.value == nil { frames.value = current }
        return Self.lines(for: line, &current.state)
    }

    private static func lines(for line: String, _ s: inout State) -> [String] {
        if let bytes = Self.hexDump(line) {
            guard var frame = s.collecting else { return [] }
            frame.bytes += bytes
            guard frame.bytes.count >= frame.expected else {
                s.collecting = frame
                return []
            }
            s.collecting = nil
            return [Self.describe(frame.bytes, outbound: frame.outbound, lastRequest: &s.lastRequest)]
        }
        s.collecting = nil
        if let cmd = Self.value(after: "fido_tx: dev=", key: "cmd=0x", in: line) { s.transmitCommand = cmd }
        if let cmd = Self.value(after: "fido_rx: dev=", key: "cmd=0x", in: line) { s.receiveCommand = cmd }
        let cbor = CTAPHIDCommand.cbor.rawValue
        if let length = Self.length(after: "fido_tx: buf=", in: line), s.transmitCommand == cbor {
            s.collecting = (true, length, [])
        } else if let length = Self.length(after: "fido_rx: buf=", in: line), s.receiveCommand == cbor {
            s.collecting = (false, length, [])
        }
        return [line]
    }

    /// Top-level members that are secret or PIN-derived, per command, in requests and in responses (CTAP 2.1
    /// numbering): pinUvAuthParams, encrypted PINs and tokens, large-blob data, and the largeBlobKeys that a
    /// makeCredential (5), getAssertion (7) or credentialManagement (11) reply carries. The preview commands
    /// number their members as the final ones do.
    static let secretRequestKeys: [CTAPCommand: Set<Int>] = [
        .makeCredential: [8], .getAssertion: [6], .clientPIN: [4, 5, 6], .largeBlobs: [2, 5],
        .credentialManagement: [4], .credentialManagementPreview: [4], .config: [4], .bioEnrollment: [5],
        .bioEnrollmentPreview: [5],
    ]
    static let secretResponseKeys: [CTAPCommand: Set<Int>] = [
        .makeCredential: [5], .getAssertion: [7], .getNextAssertion: [7], .clientPIN: [2], .largeBlobs: [1],
        .credentialManagement: [11], .credentialManagementPreview: [11],
    ]
    /// Extension members whose values are secret (hmac-secret salts/outputs, credBlob contents).
    static let secretExtensions: Set<String> = ["hmac-secret", "credBlob"]

    static func describe(_ payload: [UInt8], outbound: Bool, lastRequest: inout UInt8) -> String {
        guard let first = payload.first else { return "CTAP: empty payload" }
        let body = Array(payload.dropFirst())
        if outbound { lastRequest = first }
        let byte = outbound ? first : lastRequest
        let command = CTAPCommand(rawValue: byte)
        let name = command?.specName ?? "command 0x" + String(byte, radix: 16)
        // A failure is named (`PIN_INVALID`); success is the usual case and stays short.
        let status = first == CTAPStatus.ok.rawValue ? "" : CTAPStatus(rawValue: first).map { " \($0.specName)" } ?? ""
        let head = outbound ? "CTAP → \(name)" : "CTAP ← \(name) status 0x\(String(first, radix: 16))\(status)"
        guard !body.isEmpty else { return head }
        guard let item = try? CBOR.decode(body) else { return "\(head) (\(body.count) bytes, not CBOR)" }
        // An unknown command's members are all redacted: which of them are secret is not known.
        guard let command else { return "\(head) (\(body.count) bytes of an unknown command, not shown)" }
        let secrets = (outbound ? secretRequestKeys : secretResponseKeys)[command] ?? []
        let authDataKey = (!outbound && (command == .getAssertion || command == .getNextAssertion)) ? 2 : nil
        return "\(head) \(render(item, secretKeys: secrets, authDataKey: authDataKey))"
    }

    static func render(_ item: CBOR, secretKeys: Set<Int>, authDataKey: Int?) -> String {
        guard case .map(let entries) = item else { return render(item) }
        let parts = entries.map { key, value -> String in
            let k = key.intValue
            if let k, secretKeys.contains(k) { return "\(k): <redacted>" }
            if let k, k == authDataKey, case .bytes(let data) = value { return "\(k): \(authenticatorData(data))" }
            return "\(render(key)): \(render(value))"
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// Generic CBOR rendering; byte strings shortened, secret extension values redacted wherever they appear.
    static func render(_ item: CBOR) -> String {
        switch item {
        case .unsigned, .negative: return String(item.intValue ?? 0)
        case .bytes(let b): return bytes(b)
        case .text(let t): return "\"\(t)\""
        case .array(let items): return "[" + items.map(render).joined(separator: ", ") + "]"
        case .map(let entries):
            return "{"
                + entries.map { key, value in
                    if let name = key.textValue, secretExtensions.contains(name), value.boolValue == nil {
                        return "\"\(name)\": <redacted>"
                    }
                    return "\(render(key)): \(render(value))"
                }.joined(separator: ", ") + "}"
        case .bool(let b): return String(b)
        case .null: return "null"
        default: return "…"
        }
    }

    static func bytes(_ b: [UInt8]) -> String {
        let shown = b.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return b.count <= 16 ? "h'\(shown)'" : "h'\(shown)…' (\(b.count) bytes)"
    }

    /// Assertion authenticator data: flags and counter are what a debugger needs; its extensions (an
    /// encrypted hmac-secret output, a credBlob) are not shown.
    static func authenticatorData(_ data: [UInt8]) -> String {
        guard data.count >= 37 else { return "authData(\(data.count) bytes)" }
        let counter = data[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let flags = data[32]
        return
            "authData(flags=0x\(String(flags, radix: 16)), signCount=\(counter), \(data.count) bytes\(flags & 0x80 != 0 ? ", extensions redacted" : ""))"
    }

    /// The bytes of a libfido2 hex-dump line ("0016: 5f 32 5f …"), nil for any other line.
    static func hexDump(_ line: String) -> [UInt8]? {
        let parts = line.split(separator: " ")
        guard let offset = parts.first, offset.count == 5, offset.hasSuffix(":"),
            offset.dropLast().allSatisfy(\.isNumber),
            parts.count > 1
        else { return nil }
        var bytes: [UInt8] = []
        for part in parts.dropFirst() {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    static func value(after prefix: String, key: String, in line: String) -> UInt8? {
        guard line.hasPrefix(prefix), let range = line.firstRange(of: key) else { return nil }
        return UInt8(line[range.upperBound...].prefix(2), radix: 16)
    }

    static func length(after prefix: String, in line: String) -> Int? {
        guard line.hasPrefix(prefix), let range = line.firstRange(of: "len=") else { return nil }
        return Int(line[range.upperBound...])
    }
}
