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
    /// The ceremony UV is decided for: the key's rules differ for making a discoverable credential.
    public enum Ceremony: Sendable, Equatable {
        case makeCredential(discoverable: Bool)
        /// `discoverable`: an empty allow list, where the key names the accounts only after user verification.
        case getAssertion(discoverable: Bool)
    }

    public static func method(
        for requirement: UserVerificationRequirement, info: AuthenticatorInfo,
        ceremony: Ceremony
    ) throws(UserVerificationPolicyError) -> UserVerificationMethod {
        let configured = info.hasBuiltInUV || info.hasClientPIN || info.options["bioEnroll"] == true
        let wanted: Bool
        if requirement == .required || info.alwaysUV {
            guard configured else { throw .notConfigured(pinSupported: info.supportsClientPIN) }
            wanted = true
        } else if requirement == .preferred {
            wanted = configured
        } else {
            // A key with UV configured refuses makeCredential without it (CTAP2_ERR_PUAT_REQUIRED) unless it has
            // makeCredUvNotRqd, which covers non-discoverable credentials only (CTAP 2.1 §6.1.2, as Chromium).
            switch ceremony {
            case .makeCredential(let discoverable):
                wanted = configured && (discoverable || !info.makeCredentialUVNotRequired)
            // An empty allow list asks the key for its accounts, whose names it gives only to a verified user
            // (CTAP 2.1 §6.2.2): verified when the key can be, as Chromium ("resident credential requests always
            // involve user verification"), else the ceremony goes on without, as for "preferred".
            case .getAssertion(let discoverable): wanted = discoverable && configured
            }
        }
        guard wanted else { return .none }
        return info.hasBuiltInUV ? .builtIn : .pin
    }
}
