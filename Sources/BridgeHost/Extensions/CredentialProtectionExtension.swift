import FIDO
import WebAuthn

/// `credentialProtectionPolicy` (CTAP 2.1 §12.1): how much a credential hides without user verification.
enum CredentialProtectionPolicy: String, Equatable {
    case userVerificationOptional
    case userVerificationOptionalWithCredentialIDList
    case userVerificationRequired

    /// The CTAP credProtect level, 1…3.
    var level: Int {
        switch self {
        case .userVerificationOptional: 1
        case .userVerificationOptionalWithCredentialIDList: 2
        case .userVerificationRequired: 3
        }
    }

    /// The credProtect level to send, or nil to send none. With enforcement asked and a key that cannot
    /// protect credentials, anything above userVerificationOptional is NotAllowedError (§12.1; the ceremony
    /// collects a touch first, as Chromium's IsCandidateAuthenticatorPostTouch); without enforcement the
    /// credential is made unprotected, as CTAP allows.
    static func level(_ policy: CredentialProtectionPolicy?, enforce: Bool, info: AuthenticatorInfo)
        throws(WebAuthnError) -> Int?
    {
        guard let policy else { return nil }
        guard info.extensions.contains("credProtect") else {
            if enforce, policy != .userVerificationOptional {
                throw .notAllowed(
                    "The security key cannot protect credentials (credProtect), and the site enforces \(policy.rawValue)."
                )
            }
            return nil
        }
        return policy.level
    }
}
