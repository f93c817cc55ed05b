import FIDO
import WebAuthn

/// Maps the page's sign-in extensions to CTAP getAssertion extensions for one key, and the chosen assertion
/// back to `clientExtensionResults`. Every CTAP extension is gated on the key's getInfo list.
struct AuthenticationExtensions {
    let inputs: AuthenticationExtensionInputs
    let info: AuthenticatorInfo

    private var hasHMACSecret: Bool { info.extensions.contains("hmac-secret") }

    /// CTAP extension inputs when the key will answer with `credentialID` (nil: not known in advance).
    func ctap(for credentialID: [UInt8]?) -> AssertionExtensions {
        var e = AssertionExtensions()
        if hasHMACSecret, let prf = inputs.prf, let values = prf.values(for: credentialID) {
            e.hmacSalt = PRFInputs.salts(values)
        }
        if hasHMACSecret, let salts = inputs.hmacGetSecret { e.hmacSalt = salts.flatMap { $0 } }
        e.largeBlobKey = inputs.largeBlob != nil && LargeBlobExtension.isSupported(info)
        e.credentialBlob = inputs.getCredBlob && info.extensions.contains("credBlob")
        return e
    }

    /// prf.evalByCredential with several allowed credentials: the salt depends on the credential, so the
    /// credential is found first with a silent (up=false) assertion, as Chromium and python-fido2 do.
    func needsCredentialChoice(allowList: [[UInt8]]) -> Bool {
        hasHMACSecret && inputs.prf?.needsCredentialChoice == true && allowList.count > 1
    }

    /// A largeBlob write needs a pinUvAuthToken, so the ceremony verifies the user when the key can.
    func userVerification(_ requested: WebAuthn.UserVerificationRequirement) -> WebAuthn.UserVerificationRequirement {
        if case .write? = inputs.largeBlob, LargeBlobExtension.isSupported(info), info.hasClientPIN || info.hasBuiltInUV
        {
            return .required
        }
        return requested
    }

    func outputs(_ assertion: Assertion, largeBlob: JSONValue?, appid: Bool?) -> JSONValue {
        var results: [(String, JSONValue)] = []
        if let appid { results.append(("appid", .bool(appid))) }
        if inputs.prf != nil {
            let output = assertion.hmacSecret ?? []
            results.append(
                ("prf", output.count >= 32 ? .object([("results", PRFInputs.results(output))]) : .object([])))
        }
        if inputs.hmacGetSecret != nil, let output = assertion.hmacSecret, output.count >= 32 {
            var values: [(String, JSONValue)] = [("output1", .binary(Array(output.prefix(32))))]
            if output.count >= 64 { values.append(("output2", .binary(Array(output[32..<64])))) }
            results.append(("hmacGetSecret", .object(values)))
        }
        if inputs.largeBlob != nil { results.append(("largeBlob", largeBlob ?? .object([]))) }
        if inputs.getCredBlob { results.append(("getCredBlob", .binary(assertion.credentialBlob ?? []))) }
        return .object(results)
    }
}
