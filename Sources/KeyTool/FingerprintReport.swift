import CTAP
import FIDO
import WebAuthn

/// The fingerprints on a key, as `key fingerprints` prints them (text or `--json`).
public struct FingerprintReport: Sendable {
    public let fingerprints: [Fingerprint]

    public var text: String {
        guard !fingerprints.isEmpty else {
            return "No fingerprints on this key. Add one with `webauthn-bridge key fingerprints add`."
        }
        return fingerprints.map { "\(Self.hex($0.templateID))\t\(Self.displayName($0))" }.joined(separator: "\n")
    }

    public var json: JSONValue {
        .array(
            fingerprints.map { fingerprint in
                var fields: [(String, JSONValue)] = [("id", .string(Self.hex(fingerprint.templateID)))]
                if let name = fingerprint.name, !name.isEmpty { fields.append(("name", .string(name))) }
                return .object(fields)
            })
    }

    public static func displayName(_ fingerprint: Fingerprint) -> String {
        guard let name = fingerprint.name, !name.isEmpty else { return "(no name)" }
        return name
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    /// A template ID as `hex` writes it; nil when it is not hex.
    public static func templateID(_ text: String) -> [UInt8]? {
        let digits = Array(text.lowercased().utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}

extension FingerprintSample {
    /// What the owner should do after this touch, in words.
    public var advice: String {
        switch status {
        case .good: "good sample"
        case .tooHigh: "finger too high: place it lower"
        case .tooLow: "finger too low: place it higher"
        case .tooLeft: "finger too far left: move it right"
        case .tooRight: "finger too far right: move it left"
        case .tooFast: "finger moved too fast: hold it still"
        case .tooSlow: "finger moved too slowly"
        case .poorQuality: "poor sample: clean and dry the finger and the sensor"
        case .tooSkewed: "finger at an angle: place it straight"
        case .tooShort: "touch too short: hold the finger longer"
        case .mergeFailure: "the sample did not match the others: use the same finger"
        case .exists: "this finger is already enrolled: use another one"
        case .databaseFull: "the key holds as many fingerprints as it can"
        case .noUserActivity: "no finger seen"
        case .noUserPresenceTransition: "lift the finger between touches"
        case nil: "the key said \(rawStatus) (not a CTAP status)"
        }
    }
}
