import CBOR
import FIDO
import WebAuthn

/// Maps the page's registration extensions to CTAP makeCredential extensions for one key, and the key's
/// answer back to `clientExtensionResults`. Every CTAP extension is gated on the key's getInfo list:
/// libfido2 sends whatever is enabled, supported or not.
struct RegistrationExtensions {
    let inputs: RegistrationExtensionInputs
    let ctap: CredentialExtensions

    /// Throws what the key cannot do that the page requires (an enforced credProtect, a required largeBlob):
    /// NotAllowedError, which the ceremony gives only once the user touched the key.
    init(_ inputs: RegistrationExtensionInputs, info: AuthenticatorInfo, residentKey: Bool) throws(WebAuthnError) {
        self.inputs = inputs
        let supported = Set(info.extensions)
        var ctap = CredentialExtensions()
        ctap.hmacSecret = (inputs.prf || inputs.hmacCreateSecret) && supported.contains("hmac-secret")
        ctap.credentialProtection = try CredentialProtectionPolicy.level(
            inputs.credentialProtection, enforce: inputs.enforceCredentialProtection, info: info)
        if let support = inputs.largeBlob {
            let capable = LargeBlobExtension.isSupported(info) && residentKey
            if support == .required, !capable {
                throw .notAllowed(
                    "The security key cannot store large blobs for a discoverable credential (largeBlob support is required)."
                )
            }
            ctap.largeBlobKey = capable
        }
        if let blob = inputs.credBlob, !blob.isEmpty, supported.contains("credBlob"),
            blob.count <= info.maxCredentialBlobLength
        {
            ctap.credentialBlob = blob
        }
        ctap.minPINLength = inputs.minPinLength && supported.contains("minPinLength")
        self.ctap = ctap
    }

    /// `clientExtensionResults` for the credential the key made, read from its authenticator data (libfido2's
    /// own getters echo what was requested, not what the key did).
    func outputs(_ made: MadeCredential, authData: AuthenticatorData, residentKey: Bool) -> JSONValue {
        let returned = ExtensionOutputs(authData.extensions)
        var results: [(String, JSONValue)] = []
        if inputs.credProps { results.append(("credProps", .object([("rk", .bool(residentKey))]))) }
        if inputs.prf { results.append(("prf", .object([("enabled", .bool(returned.bool("hmac-secret") == true))]))) }
        if inputs.hmacCreateSecret { results.append(("hmacCreateSecret", .bool(returned.bool("hmac-secret") == true))) }
        if inputs.largeBlob != nil {
            let key = made.largeBlobKey ?? []
            results.append(("largeBlob", .object([("supported", .bool(key.count == 32))])))
        }
        if inputs.credBlob != nil { results.append(("credBlob", .bool(returned.bool("credBlob") == true))) }
        if inputs.appidExclude != nil { results.append(("appidExclude", .bool(true))) }
        if inputs.minPinLength, let length = returned.int("minPinLength") {
            results.append(("minPinLength", .number(Double(length))))
        }
        return .object(results)
    }
}
