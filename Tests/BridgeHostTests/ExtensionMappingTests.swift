import FIDO
import Testing
import WebAuthn

@testable import BridgeHost

/// Mapping inputs to CTAP extensions for one key: every CTAP extension is gated on the key's getInfo.
@Suite struct ExtensionMappingTests {
    static func info(extensions: [String], options: [String: Bool] = [:], maxCredBlob: Int = 32) -> AuthenticatorInfo {
        var info = AuthenticatorInfo()
        info.extensions = extensions
        info.options = options
        info.maxCredentialBlobLength = maxCredBlob
        return info
    }

    static let everything = info(
        extensions: ["credBlob", "credProtect", "hmac-secret", "largeBlobKey", "minPinLength"],
        options: ["largeBlobs": true])

    func inputs(_ text: String) throws -> RegistrationExtensionInputs { try RegistrationExtensionInputs(json(text)) }

    @Test func aKeyWithoutTheExtensionsIsSentNone() throws {
        let all = try inputs(
            #"{"prf": {}, "credBlob": {"__binary__": "AQ"}, "credentialProtectionPolicy": "userVerificationRequired", "minPinLength": true, "largeBlob": {"support": "preferred"}}"#
        )
        let mapped = try RegistrationExtensions(all, info: Self.info(extensions: []), residentKey: true)
        #expect(mapped.ctap == CredentialExtensions())
    }

    @Test func aCapableKeyIsSentEach() throws {
        let all = try inputs(
            #"{"prf": {}, "credBlob": {"__binary__": "AQ"}, "credentialProtectionPolicy": "userVerificationOptionalWithCredentialIDList", "minPinLength": true, "largeBlob": {"support": "required"}}"#
        )
        let ctap = try RegistrationExtensions(all, info: Self.everything, residentKey: true).ctap
        #expect(ctap.hmacSecret && ctap.largeBlobKey && ctap.minPINLength)
        #expect(ctap.credentialProtection == 2)
        #expect(ctap.credentialBlob == [1])
    }

    @Test func credBlobLongerThanTheKeyAllowsIsNotSent() throws {
        let ctap = try RegistrationExtensions(
            try inputs(#"{"credBlob": {"__binary__": "\#(Base64URL.encode(Array(repeating: 0, count: 33)))"}}"#),
            info: Self.everything, residentKey: true
        ).ctap
        #expect(ctap.credentialBlob == nil)
    }

    @Test func enforcedProtectionOnAKeyWithoutCredProtectIsNotAllowed() throws {
        let enforced = try inputs(
            #"{"credentialProtectionPolicy": "userVerificationRequired", "enforceCredentialProtectionPolicy": true}"#)
        #expect(throws: WebAuthnError.self) {
            try RegistrationExtensions(enforced, info: Self.info(extensions: []), residentKey: true)
        }
        let optional = try inputs(
            #"{"credentialProtectionPolicy": "userVerificationOptional", "enforceCredentialProtectionPolicy": true}"#)
        #expect(
            try RegistrationExtensions(optional, info: Self.info(extensions: []), residentKey: true).ctap
                .credentialProtection == nil)
    }

    @Test func largeBlobRequiredNeedsAKeyWithLargeBlobsAndADiscoverableCredential() throws {
        let required = try inputs(#"{"largeBlob": {"support": "required"}}"#)
        #expect(throws: WebAuthnError.self) {
            try RegistrationExtensions(required, info: Self.everything, residentKey: false)
        }
        #expect(throws: WebAuthnError.self) {
            try RegistrationExtensions(required, info: Self.info(extensions: ["largeBlobKey"]), residentKey: true)
        }
        let preferred = try inputs(#"{"largeBlob": {"support": "preferred"}}"#)
        #expect(
            try RegistrationExtensions(preferred, info: Self.everything, residentKey: false).ctap.largeBlobKey == false)
    }

    @Test func signInSaltsArePRFHashedOrRaw() throws {
        let prf = try AuthenticationExtensionInputs(
            json(#"{"prf": {"eval": {"first": {"__binary__": "AQ"}}}}"#), allowCredentials: [])
        #expect(
            AuthenticationExtensions(inputs: prf, info: Self.everything).ctap(for: nil).hmacSalt == PRFInputs.salt([1]))
        let raw = Array(repeating: UInt8(5), count: 32)
        let hmac = try AuthenticationExtensionInputs(
            json(#"{"hmacGetSecret": {"salt1": {"__binary__": "\#(Base64URL.encode(raw))"}}}"#), allowCredentials: [])
        #expect(AuthenticationExtensions(inputs: hmac, info: Self.everything).ctap(for: nil).hmacSalt == raw)
        #expect(AuthenticationExtensions(inputs: hmac, info: Self.info(extensions: [])).ctap(for: nil).hmacSalt == nil)
    }

    @Test func appidMustBeAnHTTPSURLOnTheRPIDsSite() throws {
        let validator = RelyingPartyIDValidator(publicSuffixList: .system())
        let caller = try CallerOrigin(origin: "https://login.example.com", topOrigin: nil)
        #expect(
            try AppIDExtension.validate(
                "https://example.com/appid.json", rpID: "example.com", caller: caller, validator: validator) != "")
        #expect(
            try AppIDExtension.validate(
                "https://u2f.example.com/appid.json", rpID: "example.com", caller: caller, validator: validator) != "")
        #expect(throws: WebAuthnError.self) {
            try AppIDExtension.validate(
                "https://example.org/a", rpID: "example.com", caller: caller, validator: validator)
        }
        #expect(throws: WebAuthnError.self) {
            try AppIDExtension.validate(
                "http://example.com/a", rpID: "example.com", caller: caller, validator: validator)
        }
    }

    @Test func anEmptyAppIDIsTheCallersOrigin() throws {
        let validator = RelyingPartyIDValidator(publicSuffixList: .system())
        let caller = try CallerOrigin(origin: "https://login.example.com", topOrigin: nil)
        #expect(
            try AppIDExtension.validate("", rpID: "example.com", caller: caller, validator: validator)
                == "https://login.example.com")
        let local = try CallerOrigin(origin: "http://localhost:8080", topOrigin: nil)
        #expect(throws: WebAuthnError.self) {
            try AppIDExtension.validate("", rpID: "localhost", caller: local, validator: validator)
        }
    }
}
