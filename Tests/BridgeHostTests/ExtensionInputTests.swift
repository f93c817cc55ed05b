import Testing
import WebAuthn

@testable import BridgeHost

/// Parses a JSON literal as the protocol carries it: BufferSources are {"__binary__": base64url}.
func json(_ text: String) -> JSONValue {
    do { return try JSONValue.parse(text) } catch {
        Issue.record("not JSON: \(text) (\(error))")
        return .null
    }
}

/// Reading the page's `extensions` member: the errors WebAuthn L3 §10 prescribes, before any key is touched.
@Suite struct ExtensionInputTests {
    static let id1: [UInt8] = Array(repeating: 1, count: 16)
    static let id2: [UInt8] = Array(repeating: 2, count: 16)
    static let key1 = Base64URL.encode(id1)
    static let key2 = Base64URL.encode(id2)

    func getInputs(_ text: String, allow: [[UInt8]] = [id1]) throws(WebAuthnError) -> AuthenticationExtensionInputs {
        try AuthenticationExtensionInputs(json(text), allowCredentials: allow)
    }

    func errorName(_ body: () throws -> Void) -> DOMExceptionName? {
        do {
            try body()
            return nil
        } catch { return (error as? WebAuthnError)?.name }
    }

    @Test func unknownExtensionsAreIgnored() throws {
        #expect(try RegistrationExtensionInputs(json(#"{"fancyNew": {"x": 1}}"#)) == RegistrationExtensionInputs())
        #expect(try getInputs(#"{"fancyNew": true}"#) == AuthenticationExtensionInputs())
    }

    @Test(arguments: [key2, "", "!!"])
    func prfEvalByCredentialKeysMustBeAllowedCredentialIDs(key: String) {
        #expect(
            errorName {
                _ = try getInputs(#"{"prf": {"evalByCredential": {"\#(key)": {"first": {"__binary__": "AQ"}}}}}"#)
            } == .syntax)
    }

    @Test func prfEvalByCredentialWithoutAllowCredentialsIsNotSupported() {
        #expect(
            errorName {
                _ = try getInputs(
                    #"{"prf": {"evalByCredential": {"\#(Self.key1)": {"first": {"__binary__": "AQ"}}}}}"#, allow: [])
            } == .notSupported)
    }

    @Test func prfEvalByCredentialAtCreationIsNotSupported() {
        #expect(
            errorName {
                _ = try RegistrationExtensionInputs(
                    json(#"{"prf": {"evalByCredential": {"\#(Self.key1)": {"first": {"__binary__": "AQ"}}}}}"#))
            } == .notSupported)
    }

    @Test func prfPicksTheCredentialsOwnInputElseEval() throws {
        let text =
            #"{"prf": {"eval": {"first": {"__binary__": "CQ"}}, "evalByCredential": {"\#(Self.key1)": {"first": {"__binary__": "AQ"}, "second": {"__binary__": "Ag"}}}}}"#
        let inputs = try #require(try getInputs(text, allow: [Self.id1, Self.id2]).prf)
        #expect(inputs.values(for: Self.id1) == PRFInputs.Values(first: [1], second: [2]))
        #expect(inputs.values(for: Self.id2) == PRFInputs.Values(first: [9], second: nil))
        #expect(inputs.needsCredentialChoice)
    }

    @Test func prfSaltsAreHashedPerInput() {
        #expect(PRFInputs.salt([]).count == 32)
        #expect(PRFInputs.salt([1]) != PRFInputs.salt([2]))
        #expect(PRFInputs.salts(.init(first: [1], second: [2])) == PRFInputs.salt([1]) + PRFInputs.salt([2]))
    }

    @Test(arguments: [
        (#"{"largeBlob": {"support": "required"}}"#, DOMExceptionName.notSupported),
        (#"{"hmacGetSecret": {"salt1": {"__binary__": "AQID"}}}"#, .typeError),
        (#"{"hmacGetSecret": {}}"#, .typeError),
        (
            #"{"prf": {"eval": {"first": {"__binary__": "AQ"}}}, "hmacGetSecret": {"salt1": {"__binary__": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}}"#,
            .notSupported
        ),
        (#"{"largeBlob": {"write": "not bytes"}}"#, .typeError),
        (#"{"prf": {"eval": {"second": {"__binary__": "AQ"}}}}"#, .typeError),
        (#"{"appid": 5}"#, .typeError),
        (#"[]"#, .typeError),
    ])
    func malformedSignInInputsAreRejected(text: String, name: DOMExceptionName) {
        #expect(errorName { _ = try getInputs(text) } == name)
    }

    /// Chromium refuses these in its browser process, after the rp.id (Blink's refusals come before it).
    @Test func largeBlobReadWithWriteOrAWriteWithoutOneAllowedCredentialIsRefusedAfterTheRelyingParty() throws {
        let write = #"{"largeBlob": {"write": {"__binary__": "AQ"}}}"#
        #expect(try getInputs(write, allow: [Self.id1, Self.id2]).refusalAfterRelyingParty?.name == .notSupported)
        #expect(try getInputs(write, allow: []).refusalAfterRelyingParty?.name == .notSupported)
        let both = try getInputs(#"{"largeBlob": {"read": true, "write": {"__binary__": "AQ"}}}"#)
        #expect(both.refusalAfterRelyingParty?.name == .notSupported && both.largeBlob == nil)
        let one = try getInputs(write)
        #expect(one.largeBlob == .write([1]) && one.refusalAfterRelyingParty == nil)
    }

    /// Two refusals in one request: the first Blink makes wins (authentication_credentials_container.cc).
    @Test(arguments: [
        (#"{"appid": "https://a.example", "largeBlob": {"read": true}, "prf": {"evalByCredential": {}}}"#, "'appid'"),
        (#"{"largeBlob": {"write": {"__binary__": "AQ"}}, "prf": {"evalByCredential": {}}}"#, "'write'"),
        (#"{"prf": {"evalByCredential": {}}, "credentialProtectionPolicy": "bogus"}"#, "'evalByCredential'"),
    ])
    func registrationRefusalsComeInBlinksOrder(text: String, named: String) {
        do {
            _ = try RegistrationExtensionInputs(json(text))
            Issue.record("accepted \(text)")
        } catch { #expect(error.name == .notSupported && error.message.contains(named), "\(error)") }
    }

    @Test func signInRefusalsComeInBlinksOrder() throws {
        let credProps =
            #"{"credProps": true, "largeBlob": {"support": "required"}, "prf": {"evalByCredential": {"": {"first": {"__binary__": "AQ"}}}}}"#
        #expect(
            throws: WebAuthnError(.notSupported, "The 'credProps' extension is only valid when creating a credential")
        ) {
            try getInputs(credProps)
        }
        // Blink's SyntaxError beats the browser process's refusal of read with write.
        let both =
            #"{"largeBlob": {"read": true, "write": {"__binary__": "AQ"}}, "prf": {"evalByCredential": {"": {"first": {"__binary__": "AQ"}}}}}"#
        #expect(errorName { _ = try getInputs(both) } == .syntax)
    }

    @Test func registrationInputsAreRead() throws {
        let inputs = try RegistrationExtensionInputs(
            json(
                """
                {"credProps": true, "prf": {}, "hmacCreateSecret": true, "largeBlob": {"support": "preferred"},
                 "credBlob": {"__binary__": "Bw"}, "credentialProtectionPolicy": "userVerificationRequired",
                 "enforceCredentialProtectionPolicy": true, "minPinLength": true, "appidExclude": "https://example.com/a"}
                """))
        #expect(inputs.credProps && inputs.prf && inputs.hmacCreateSecret && inputs.minPinLength)
        #expect(inputs.largeBlob == .preferred)
        #expect(inputs.credBlob == [7])
        #expect(inputs.credentialProtection == .userVerificationRequired)
        #expect(inputs.enforceCredentialProtection)
        #expect(inputs.appidExclude == "https://example.com/a")
    }

    @Test func booleanInputsConvertAsJavaScriptDoes() throws {
        #expect(try getInputs(#"{"getCredBlob": "yes"}"#).getCredBlob)
        #expect(try getInputs(#"{"getCredBlob": 0}"#).getCredBlob == false)
        #expect(try getInputs(#"{"largeBlob": {"read": 1}}"#).largeBlob == .read)
    }

    @Test func unknownCredentialProtectionPolicyIsChromiumsNotSupportedError() {
        #expect(throws: WebAuthnError(.notSupported, "Required parameters missing in `options.publicKey`.")) {
            try RegistrationExtensionInputs(json(#"{"credentialProtectionPolicy": "somethingElse"}"#))
        }
    }

    @Test func credPropsWhenSigningInIsNotSupportedError() throws {
        #expect(
            throws: WebAuthnError(.notSupported, "The 'credProps' extension is only valid when creating a credential")
        ) {
            try getInputs(#"{"credProps": true}"#)
        }
        #expect(try getInputs(#"{"credProps": false}"#) == AuthenticationExtensionInputs())
    }
}
