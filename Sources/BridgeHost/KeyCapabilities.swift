import FIDO
import WebAuthn

/// What a key can do, and what the bridge does with it because of that, in the user's words: the part of
/// `webauthn-bridge devices` that answers "why does this site not work with my key?" (docs/keys.md).
public struct KeyCapabilities {
    public let info: AuthenticatorInfo

    public init(info: AuthenticatorInfo) { self.info = info }

    private var speaksU2F: Bool { info.versions.contains("U2F_V2") }

    /// One line: the protocol and each capability a site may ask for.
    public var summary: String {
        guard info.isFIDO2 else { return "U2F only: no passkeys, no PIN, no user verification; ES256" }
        var parts = [info.versions.contains("FIDO_2_1") ? "CTAP 2.1" : "CTAP 2.0"]
        if speaksU2F { parts[0] += " and U2F" }
        parts.append(info.supportsResidentKeys ? "passkeys" : "no passkeys")
        if info.supportsClientPIN {
            parts.append(info.hasClientPIN ? "PIN set" : "PIN not set")
        } else {
            parts.append("no PIN")
        }
        if info.hasBuiltInUV { parts.append("built-in UV (fingerprint)") }
        if info.alwaysUV { parts.append("alwaysUv") }
        parts.append(info.supportsExtension("hmac-secret") ? "PRF" : "no PRF")
        parts.append(info.supportsLargeBlobs && info.supportsExtension("largeBlobKey") ? "largeBlob" : "no largeBlob")
        parts.append(info.supportedAlgorithms.map { AlgorithmSelection.name(of: $0) }.joined(separator: "/"))
        return parts.joined(separator: ", ")
    }

    /// What the bridge will do with this key, one sentence each.
    public var bridgeBehaviour: [String] {
        guard info.isFIDO2 else {
            return [
                "registers non-discoverable ES256 credentials over U2F (fido-u2f attestation) and signs in with an allow list, also under a site's old U2F AppID",
                "refuses, after a touch, requests that need a passkey or user verification, as Chromium does",
            ]
        }
        var lines: [String] = []
        if !info.supportsResidentKeys {
            lines.append(
                "residentKey \"required\" is refused after a touch; \"preferred\" makes a non-discoverable credential")
        }
        if info.alwaysUV {
            lines.append("asks for the PIN (or fingerprint) for every registration and sign-in (alwaysUv)")
        } else if info.hasClientPIN && !info.makeCredentialUVNotRequired {
            lines.append("asks for the PIN for every registration (a CTAP 2.0 key needs it whenever a PIN is set)")
        }
        if info.hasBuiltInUV {
            lines.append(
                "verifies with the fingerprint"
                    + (info.supportsClientPIN ? ", and with the PIN once the fingerprint is blocked" : ""))
        }
        if info.supportsClientPIN && !info.hasClientPIN && !info.hasBuiltInUV {
            lines.append("offers to set a PIN when a site requires user verification")
        }
        if !info.supportsClientPIN && !info.hasBuiltInUV {
            lines.append("refuses, after a touch, sites that require user verification")
        }
        if info.maxCredentialCountInList > 0 {
            lines.append("sends allow and exclude lists longer than \(info.maxCredentialCountInList) in silent batches")
        }
        return lines
    }
}
