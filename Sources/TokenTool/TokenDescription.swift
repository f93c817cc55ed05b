import SoftToken

/// How `webauthn-bridge token` shows a SoftToken to a person: what it speaks, and its credentials grouped by
/// relying party and user. Never a secret: `SoftTokenSummary` carries none.
public enum TokenDescription {
    /// One line of what the key speaks and can do, as its CTAPHID INIT and getInfo say it.
    public static func capabilities(_ c: SoftTokenConfiguration) -> String {
        var parts: [String] = []
        if c.ctap2 { parts.append(c.ctap21 ? "CTAP 2.1" : "CTAP 2.0") }
        if c.u2f { parts.append(c.alwaysUV ? "U2F (off while alwaysUv)" : "U2F") }
        guard c.ctap2 else {
            return (parts + ["ES256", "no discoverable credentials, no PIN, no user verification"]).joined(
                separator: "; ")
        }
        parts.append("algorithms \(c.algorithms.map { $0 == -8 ? "EdDSA" : "ES256" }.joined(separator: ", "))")
        parts.append(
            "PIN protocols \((c.ctap21 ? c.pinUvAuthProtocols : [1]).map(String.init).joined(separator: ", "))")
        if !c.ctap21 || !c.pinUvAuthTokenPermissions { parts.append("no pinUvAuthToken") }
        parts.append(c.residentKeys ? "discoverable credentials" : "no discoverable credentials")
        if c.builtInUV { parts.append("built-in UV") }
        if c.alwaysUV { parts.append("alwaysUv") }
        if c.ctap21 && c.largeBlobs { parts.append("largeBlobs") }
        if c.effectiveNoCredentialsOrder != c.noCredentialsOrderOfItsVersions {
            parts.append(
                c.effectiveNoCredentialsOrder == .atOnce
                    ? "\"no credentials\" at once" : "\"no credentials\" after the touch")
        }
        parts.append("extensions \((c.extensions ?? SoftToken.supportedExtensions).joined(separator: ", "))")
        parts.append("maxMsgSize \(c.maxMessageSize)")
        if let count = c.maxCredentialCountInList { parts.append("\(count) credentials per list") }
        return parts.joined(separator: "; ")
    }

    private static func fingerprints(_ summary: SoftTokenSummary) -> String {
        let c = summary.configuration
        guard c.bioEnrollment || c.bioEnrollmentPreview else { return "no reader" }
        guard !summary.fingerprintNames.isEmpty else { return "none enrolled" }
        return summary.fingerprintNames.map { $0.isEmpty ? "(no name)" : $0 }.joined(separator: ", ")
    }

    /// Human-readable summary, grouped by relying party and user.
    public static func text(_ summary: SoftTokenSummary) -> String {
        let configuration = summary.configuration
        var lines = [
            "SoftToken \(summary.path)",
            "  NOTE: \(summary.notice)",
            "  profile: \(configuration.profile.map { name in SoftTokenProfile.named(name).map { "\(name) — \($0.summary)" } ?? name } ?? "none (full CTAP 2.1 SoftToken)")",
            "  speaks: \(capabilities(configuration))",
            "  AAGUID: \(hex(summary.aaguid))",
            "  PIN: \(summary.pinSet ? "set, \(summary.pinRetries) retries left" : "not set"), at least \(summary.minPINLength) characters\(summary.forcePINChange ? "; must be changed before the next use" : "")\(summary.alwaysUV ? "; alwaysUv on" : "")",
            "  resident keys: \(configuration.residentKeys ? "yes" : "no"); built-in UV: \(configuration.builtInUV ? "yes (\(summary.uvRetries) retries left)" : "no")",
            "  presence: \(PresenceOption.text(configuration.presence)); attestation: \(configuration.attestation.rawValue); PIN/UV protocols: \(configuration.pinUvAuthProtocols.map(String.init).joined(separator: ", "))",
            "  large-blob array: \(summary.largeBlobArrayBytes) bytes",
            "  fingerprints: \(fingerprints(summary))",
            "  credentials: \(summary.credentials.count)",
        ]
        let byRP = Dictionary(grouping: summary.credentials, by: \.rpID)
        for (rpID, credentials) in byRP.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(rpID)")
            for credential in credentials {
                let user =
                    credential.userName.map { "\($0)" + (credential.userDisplayName.map { " (\($0))" } ?? "") }
                    ?? "(unknown user)"
                let kind = credential.discoverable ? "discoverable" : "server-side"
                let algorithm = credential.algorithm == -8 ? "EdDSA" : "ES256"
                lines.append("    \(user)  user id \(hex(credential.userID))")
                lines.append(
                    "      \(kind), \(algorithm), credProtect \(credential.credProtect), sign count \(credential.signCount)"
                )
                lines.append(
                    "      credential id \(hex(credential.credentialID.prefix(16)))… (\(credential.credentialID.count) bytes)"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
