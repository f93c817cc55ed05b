import CBOR
import Synchronization

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

    private let state = Mutex(State())

    public init() {}

    /// Feeds one libfido2 line; returns the lines to log (none for a hex dump, one for a decoded payload).
    public func lines(for line: String) -> [String] {
        state.withLock { s in
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
            if let length = Self.length(after: "fido_tx: buf=", in: line), s.transmitCommand == Self.cborCommand {
                s.collecting = (true, length, [])
            } else if let length = Self.length(after: "fido_rx: buf=", in: line), s.receiveCommand == Self.cborCommand {
                s.collecting = (false, length, [])
            }
            return [line]
        }
    }

    static let cborCommand: UInt8 = 0x10

    static let commandNames: [UInt8: String] = [
        0x01: "authenticatorMakeCredential", 0x02: "authenticatorGetAssertion", 0x04: "authenticatorGetInfo",
        0x06: "authenticatorClientPIN", 0x07: "authenticatorReset", 0x08: "authenticatorGetNextAssertion",
        0x0A: "authenticatorCredentialManagement", 0x0B: "authenticatorSelection", 0x0C: "authenticatorLargeBlobs",
        0x0D: "authenticatorConfig",
    ]

    /// Top-level members that are secret or PIN-derived, per command, in requests and in responses (CTAP 2.1
    /// numbering): pinUvAuthParams, encrypted PINs and tokens, large-blob data, and the largeBlobKeys that a
    /// makeCredential (5), getAssertion (7) or credentialManagement (11) reply carries.
    static let secretRequestKeys: [UInt8: Set<Int>] = [
        0x01: [8], 0x02: [6], 0x06: [4, 5, 6], 0x0C: [2, 5], 0x0A: [4], 0x0D: [4],
    ]
    static let secretResponseKeys: [UInt8: Set<Int>] = [
        0x01: [5], 0x02: [7], 0x08: [7], 0x06: [2], 0x0C: [1], 0x0A: [11],
    ]
    /// Extension members whose values are secret (hmac-secret salts/outputs, credBlob contents).
    static let secretExtensions: Set<String> = ["hmac-secret", "credBlob"]

    static func describe(_ payload: [UInt8], outbound: Bool, lastRequest: inout UInt8) -> String {
        guard let first = payload.first else { return "CTAP: empty payload" }
        let body = Array(payload.dropFirst())
        if outbound { lastRequest = first }
        let command = outbound ? first : lastRequest
        let name = commandNames[command] ?? "command 0x" + String(command, radix: 16)
        let head = outbound ? "CTAP → \(name)" : "CTAP ← \(name) status 0x\(String(first, radix: 16))"
        guard !body.isEmpty else { return head }
        guard let item = try? CBOR.decode(body) else { return "\(head) (\(body.count) bytes, not CBOR)" }
        let secrets = (outbound ? secretRequestKeys : secretResponseKeys)[command] ?? []
        let authDataKey = (!outbound && (command == 0x02 || command == 0x08)) ? 2 : nil
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
