/// The relying party's userVerification wish, in this layer's own terms.
public enum UserVerificationRequirement: String, Sendable { case discouraged, preferred, required }

/// How a ceremony verifies the user, decided before talking to the key.
public enum UserVerificationMethod: Sendable, Equatable {
    case none
    /// The key's own biometric/on-device UV (getPinUvAuthTokenUsingUvWithPermissions, or the uv option).
    case builtIn
    case pin
}

/// Why user verification is impossible with this key.
public enum UserVerificationPolicyError: Error, Equatable, Sendable {
    /// Required (by the RP or the key's alwaysUv) but the key has neither a PIN nor built-in UV set up.
    case notConfigured(pinSupported: Bool)
}

/// python-fido2's `_should_use_uv` logic, with one deliberate difference taken from Chromium: when
/// the RP only *prefers* UV and the key could do it but has no PIN set, the ceremony goes on without
/// UV instead of failing (a PIN-less key must work for "preferred").
public enum UserVerificationPolicy {
    public static func method(for requirement: UserVerificationRequirement, info: AuthenticatorInfo,
                              makingCredential: Bool) throws(UserVerificationPolicyError) -> UserVerificationMethod {
        let configured = info.hasBuiltInUV || info.hasClientPIN || info.options["bioEnroll"] == true
        let wanted: Bool
        if requirement == .required || info.alwaysUV {
            guard configured else { throw .notConfigured(pinSupported: info.supportsClientPIN) }
            wanted = true
        } else if requirement == .preferred {
            wanted = configured
        } else {
            // A key with UV configured may refuse makeCredential without it (no makeCredUvNotRqd).
            wanted = makingCredential && configured && !info.makeCredentialUVNotRequired
        }
        guard wanted else { return .none }
        return info.hasBuiltInUV ? .builtIn : .pin
    }
}
