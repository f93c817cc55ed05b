import FIDO
import WebAuthn

/// What a key can do, in the user's words: the one-line summary the host's `info` and `key-info` replies carry, and
/// `webauthn-bridge devices` shows above what the bridge does with the key (Diagnostics' `bridgeBehaviour`).
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
}
