import FIDO
import WebAuthn

/// The answers of the key-management requests, as the Security keys page reads them and `key passkeys --json`
/// prints them (docs/protocol.md, "Key management"). Nothing secret: a passkey's largeBlobKey only as present or
/// not, never a PIN or a key.
public enum KeyReport {
    /// `key-info`: what the key says about itself in getInfo, and its PIN state, without asking for the PIN.
    /// `fresh`: getInfo read again after a change (the one read at opening otherwise).
    static func info(_ device: Device, fresh: AuthenticatorInfo? = nil) -> JSONValue {
        let info = fresh ?? device.info
        let location = device.location
        var fields: [(String, JSONValue)] = [
            ("path", .string(location.path)), ("product", .string(location.product)),
            ("manufacturer", .string(location.manufacturer)),
            ("kind", .string(location.isSoftware ? "software token" : "security key")),
            ("summary", .string(KeyCapabilities(info: info).summary)),
            ("aaguid", .string(aaguid(info.aaguid))),
            ("versions", .array(info.versions.map(JSONValue.string))),
            ("extensions", .array(info.extensions.map(JSONValue.string))),
            ("algorithms", .array(info.supportedAlgorithms.map { .string(AlgorithmSelection.name(of: $0)) })),
            ("options", .object(info.options.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })),
            ("pin", .string(!info.supportsClientPIN ? "unsupported" : info.hasClientPIN ? "set" : "not-set")),
            ("credentialManagement", .string(credentialManagement(info))),
        ]
        if info.forcePINChange { fields.append(("forcePinChange", .bool(true))) }
        if info.minPINLength > 0 { fields.append(("minPinLength", .number(Double(info.minPINLength)))) }
        if info.firmwareVersion > 0 { fields.append(("firmwareVersion", .number(Double(info.firmwareVersion)))) }
        if info.hasClientPIN, let retries = try? device.pinRetries() {
            fields.append(("pinRetries", .number(Double(retries))))
        }
        if info.hasBuiltInUV, let retries = try? device.uvRetries() {
            fields.append(("uvRetries", .number(Double(retries))))
        }
        return .object(fields)
    }

    /// "full" (CTAP 2.1: list, delete, rename), "preview" (2.1-PRE: no rename) or "none".
    static func credentialManagement(_ info: AuthenticatorInfo) -> String {
        if info.options["credMgmt"] == true { return "full" }
        return info.options["credentialMgmtPreview"] == true ? "preview" : "none"
    }

    /// The AAGUID in the usual 8-4-4-4-12 hex form; "" when the key gives none (a U2F key).
    static func aaguid(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return "" }
        let hex = bytes.map { byte in String(byte, radix: 16).leftPadded(to: 2) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }

    /// `passkeys`: each passkey by site and user, and the key's slots used and left.
    public static func passkeys(_ passkeys: [StoredPasskey], used: Int, left: Int) -> JSONValue {
        .object([
            ("passkeys", .array(passkeys.map(passkey))),
            ("slotsUsed", .number(Double(used))),
            ("slotsLeft", .number(Double(left))),
        ])
    }

    static func passkey(_ passkey: StoredPasskey) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("rpId", .string(passkey.rpID)),
            ("credentialId", .string(Base64URL.encode(passkey.credentialID))),
            ("userId", .string(Base64URL.encode(passkey.userID))),
        ]
        if let name = passkey.rpName { fields.append(("rpName", .string(name))) }
        if let name = passkey.userName { fields.append(("userName", .string(name))) }
        if let name = passkey.userDisplayName { fields.append(("userDisplayName", .string(name))) }
        fields += [
            ("credProtect", .number(Double(passkey.credProtect))), ("largeBlob", .bool(passkey.hasLargeBlobKey)),
        ]
        return .object(fields)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
