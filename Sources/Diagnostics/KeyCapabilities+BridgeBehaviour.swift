import BridgeHost
import FIDO

/// What the bridge does with a key because of what it can do, in the user's words: the part of `webauthn-bridge
/// devices` that answers "why does this site not work with my key?" (docs/keys.md). Only that report says it; the
/// request path acts on the same facts in its ceremonies.
extension KeyCapabilities {
    /// What the bridge will do with this key, one sentence each.
    var bridgeBehaviour: [String] {
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
