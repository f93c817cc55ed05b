import CBOR
import FIDO
import WebAuthn

/// The create() extensions this host acts on (WebAuthn L3 §10, CTAP 2.1 §12), validated before any key is
/// touched. Unknown extension ids are ignored, as browsers do.
struct RegistrationExtensions {
    var credProps = false
    /// prf: CTAP 2.1 keys cannot evaluate at create (that is hmac-secret-mc, CTAP 2.2): `enabled` only.
    var prf = false
    var hmacCreateSecret = false
    var credentialProtection: (level: Int, enforce: Bool)?
    var credentialBlob: [UInt8]?
    var minPINLength = false
    var largeBlob: LargeBlobSupport?

    enum LargeBlobSupport { case required, preferred }

    static let protectionLevels = [
        "userVerificationOptional": 1, "userVerificationOptionalWithCredentialIDList": 2, "userVerificationRequired": 3,
    ]

    init(_ json: JSONValue?) throws(WebAuthnError) {
        guard let json else { return }
        credProps = json["credProps"] == .bool(true)
        if let prfInput = json["prf"] {
            guard case .object = prfInput else { throw WebAuthnError(name: .typeError, message: "extensions.prf must be an object.") }
            prf = true
        }
        hmacCreateSecret = json["hmacCreateSecret"] == .bool(true)
        if case .string(let policy)? = json["credentialProtectionPolicy"], let level = Self.protectionLevels[policy] {
            credentialProtection = (level, json["enforceCredentialProtectionPolicy"] == .bool(true))
        }
        switch json["credBlob"] {
        case .binary(let blob)?: credentialBlob = blob
        case nil, .null?: break
        default: throw WebAuthnError(name: .typeError, message: "extensions.credBlob must be a BufferSource.")
        }
        minPINLength = json["minPinLength"] == .bool(true)
        if let input = json["largeBlob"] {
            if input["read"] != nil || input["write"] != nil {
                throw WebAuthnError(name: .notSupported, message: "extensions.largeBlob read and write are for get(), not create().")
            }
            switch input["support"]?.stringValue {
            case "required": largeBlob = .required
            case "preferred", nil: largeBlob = .preferred
            default: break
            }
        }
    }

    /// The CTAP inputs for this key, gated on its getInfo (libfido2 sends whatever is enabled).
    func ctapInputs(for info: AuthenticatorInfo) throws(WebAuthnError) -> CredentialExtensions {
        var ctap = CredentialExtensions()
        ctap.hmacSecret = (prf || hmacCreateSecret) && info.supportsExtension("hmac-secret")
        if let protection = credentialProtection {
            if info.supportsExtension("credProtect") {
                ctap.credentialProtection = protection.level
            } else if protection.enforce && protection.level > 1 {
                throw WebAuthnError(name: .notAllowed, message: "The security key cannot enforce the requested credential protection policy.")
            }
        }
        if let blob = credentialBlob, info.supportsExtension("credBlob"), blob.count <= info.maxCredentialBlobLength {
            ctap.credentialBlob = blob
        }
        ctap.minPINLength = minPINLength && info.supportsExtension("minPinLength")
        if let largeBlob {
            let supported = info.supportsLargeBlobs && info.supportsExtension("largeBlobKey")
            if largeBlob == .required && !supported {
                throw WebAuthnError(name: .notSupported, message: "The security key cannot store large blobs (largeBlob support is required).")
            }
            ctap.largeBlobKey = supported
        }
        return ctap
    }

    /// clientExtensionResults, read from what the key actually put in authenticator data.
    func outputs(authenticatorData: AuthenticatorData, made: MadeCredential, residentKey: Bool) -> JSONValue {
        let returned = authenticatorData.extensions
        let hmac = returned?[text: "hmac-secret"]?.boolValue == true
        var results: [(String, JSONValue)] = []
        if credProps { results.append(("credProps", .object([("rk", .bool(residentKey))]))) }
        if prf { results.append(("prf", .object([("enabled", .bool(hmac))]))) }
        if hmacCreateSecret { results.append(("hmacCreateSecret", .bool(hmac))) }
        if credentialBlob != nil { results.append(("credBlob", .bool(returned?[text: "credBlob"]?.boolValue == true))) }
        if largeBlob != nil {
            results.append(("largeBlob", .object([("supported", .bool(!(made.largeBlobKey ?? []).isEmpty))])))
        }
        return .object(results)
    }
}
