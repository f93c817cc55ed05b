import BridgeHost
import FIDO
import WebAuthn

/// The passkeys on a key, by site and user, as `key passkeys` prints them. Credential IDs are shown in
/// base64url (as sites and `--json` use them); nothing secret is in it (a largeBlobKey only as "present").
public struct PasskeyReport: Sendable {
    public let passkeys: [StoredPasskey]
    public let used: Int
    public let remaining: Int

    public var text: String {
        var lines: [String] = []
        var site: String?
        for passkey in passkeys {
            if passkey.rpID != site {
                site = passkey.rpID
                let name = passkey.rpName.flatMap { $0 == passkey.rpID || $0.isEmpty ? nil : $0 }
                lines.append(name.map { "\(passkey.rpID) (\($0))" } ?? passkey.rpID)
            }
            var user = passkey.userName ?? "(no user name)"
            if let display = passkey.userDisplayName, display != passkey.userName { user += " — \(display)" }
            lines.append("  \(user)")
            var details = "    id \(Base64URL.encode(passkey.credentialID))"
            details += ", credProtect \(Self.credProtectName(passkey.credProtect))"
            if passkey.hasLargeBlobKey { details += ", large blob" }
            lines.append(details)
        }
        if passkeys.isEmpty { lines.append("No passkeys on this key.") }
        lines.append("Slots: \(used) used, \(remaining) left.")
        return lines.joined(separator: "\n")
    }

    public var json: JSONValue { KeyReport.passkeys(passkeys, used: used, left: remaining) }

    /// CTAP 2.1 §12.1's names for the levels.
    static func credProtectName(_ level: Int) -> String {
        switch level {
        case 1: "1 (userVerificationOptional)"
        case 2: "2 (userVerificationOptionalWithCredentialIDList)"
        case 3: "3 (userVerificationRequired)"
        default: "unknown"
        }
    }
}
