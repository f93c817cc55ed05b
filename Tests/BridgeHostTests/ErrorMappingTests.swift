import FIDO
import Testing
import WebAuthn

@testable import BridgeHost

/// What a page may learn from an error: Chromium's fixed texts, never the key's state.
struct ErrorMappingTests {
    static let keyStates = [
        FIDOError.pinBlocked, FIDOError.pinAuthBlocked, FIDOError.pinRequired, FIDOError.pinNotSet, FIDOError.uvBlocked,
        FIDOError.noCredentials, FIDOError.unsupportedOption, FIDOError.operationDenied, FIDOError.actionTimeout,
        FIDOError.internalError, FIDOError.transmitFailed, FIDOError.unsupportedAlgorithm,
    ]

    @Test(arguments: keyStates)
    func keyFailuresReachThePageAsChromiumsNotAllowedText(code: Int32) {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: code, function: "fido_dev_get_assert"), cancelled: false, timedOut: false)
        #expect(error.name == .notAllowed)
        #expect(ErrorMapping.pageMessage(for: error) == ErrorMapping.PageText.notAllowed)
        #expect(error.message != ErrorMapping.PageText.notAllowed, "the precise reason stays for the log and the user")
    }

    /// What a key cannot do that the request requires: Chromium makes each NOT_ALLOWED_ERROR once the key is
    /// touched (IsCandidateAuthenticatorPostTouch), never a NotSupportedError a page could tell apart.
    @Test func whatTheKeyCannotDoIsChromiumsNotAllowedText() throws {
        var failures = [ErrorMapping.noCommonAlgorithm([-8])]
        let large = try RegistrationExtensionInputs(json(#"{"largeBlob": {"support": "required"}}"#))
        let protected = try RegistrationExtensionInputs(
            json(
                #"{"credentialProtectionPolicy": "userVerificationRequired", "enforceCredentialProtectionPolicy": true}"#
            ))
        for inputs in [large, protected] {
            #expect(throws: WebAuthnError.self) {
                try RegistrationExtensions(inputs, info: AuthenticatorInfo(), residentKey: true)
            }
            do { _ = try RegistrationExtensions(inputs, info: AuthenticatorInfo(), residentKey: true) } catch {
                failures.append(error)
            }
        }
        #expect(failures.count == 3)
        for error in failures {
            #expect(error.name == .notAllowed, "\(error)")
            #expect(ErrorMapping.pageMessage(for: error) == ErrorMapping.PageText.notAllowed)
        }
    }

    /// An input the request itself cannot use: the page gets Chromium's own name and words (Blink's, or once the
    /// rp.id passed, its browser process's), nothing else to hide.
    @Test(
        arguments: [
            (
                #"{"largeBlob": {"write": {"__binary__": "AQ"}}}"#, [[UInt8]](), DOMExceptionName.notSupported,
                "The 'largeBlob' extension's 'write' parameter can only be used with a single credential present on 'allowCredentials'"
            ),
            (
                #"{"largeBlob": {"support": "preferred", "read": true}}"#, [[1]], .notSupported,
                "The 'largeBlob' extension's 'support' parameter is only valid when creating a credential"
            ),
            (
                #"{"prf": {"evalByCredential": {"AQ": {"first": {"__binary__": "AQ"}}}}}"#, [], .notSupported,
                "'prf' extension has 'evalByCredential' with an empty allow list"
            ),
            (
                #"{"prf": {"evalByCredential": {"Ag": {"first": {"__binary__": "AQ"}}}}}"#, [[1]], .syntax,
                "'prf' extension contains 'evalByCredential' key that doesn't match any in allowedCredentials"
            ),
        ] as [(String, [[UInt8]], DOMExceptionName, String)])
    func signInInputRefusalsAreChromiumsWords(text: String, allow: [[UInt8]], name: DOMExceptionName, words: String) {
        #expect(throws: WebAuthnError(name, words)) {
            let inputs = try AuthenticationExtensionInputs(json(text), allowCredentials: allow)
            if let refusal = inputs.refusalAfterRelyingParty { throw refusal }
        }
        #expect(ErrorMapping.pageMessage(for: WebAuthnError(name, words)) == words)
    }

    @Test func anExcludedCredentialIsChromiumsInvalidStateText() {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.credentialExcluded, function: "f"), cancelled: false, timedOut: false)
        #expect(error.name == .invalidState)
        #expect(
            ErrorMapping.pageMessage(for: error)
                == "The user attempted to register an authenticator that contains one of the credentials already registered with the relying party."
        )
    }

    /// Chromium's error sheets that offer "Try again" (sheet_models.cc, `StartOver`), and the failures it ends at once
    /// or whose sheet has only Close (the timeout).
    @Test(
        arguments: [
            (FIDOError.noCredentials, true), (FIDOError.credentialExcluded, true), (FIDOError.pinAuthBlocked, true),
            (FIDOError.pinBlocked, true), (FIDOError.keyStoreFull, true), (FIDOError.deviceRemoved, true),
            (FIDOError.receiveFailed, false), (FIDOError.internalError, false), (FIDOError.actionTimeout, false),
        ] as [(Int32, Bool)])
    func theUserMayTryAgainWhereChromiumOffersIt(code: Int32, offered: Bool) {
        let error = ErrorMapping.webAuthnError(
            for: FIDOError(code: code, function: "fido_dev_get_assert"), cancelled: false, timedOut: false)
        #expect(error.offersRetry == offered)
    }

    @Test func aTimeoutOrACancelIsNeverRetried() {
        for (cancelled, timedOut) in [(true, false), (false, true)] {
            let error = ErrorMapping.webAuthnError(
                for: FIDOError(code: FIDOError.noCredentials, function: "f"), cancelled: cancelled, timedOut: timedOut)
            #expect(!error.offersRetry)
        }
    }

    static let validator = RelyingPartyIDValidator(publicSuffixList: .system())

    @Test(
        arguments: [
            ("https://example.com", "evil.com", ErrorMapping.PageText.badRelyingPartyID),
            ("https://example.com", "com", ErrorMapping.PageText.badRelyingPartyID),
            ("https://foo.github.io", "github.io", ErrorMapping.PageText.badRelyingPartyID),
            ("https://example.com", "1.2.3.4", ErrorMapping.PageText.badRelyingPartyID),
            ("https://127.0.0.1", nil, ErrorMapping.PageText.invalidDomain),
            ("https://github.io", nil, ErrorMapping.PageText.invalidDomain),
        ] as [(String, String?, String)])
    func relyingPartyRefusalsUseChromiumsSecurityErrorTexts(origin: String, rpID: String?, expected: String) throws {
        let caller = try CallerOrigin(origin: origin, topOrigin: nil)
        #expect(throws: WebAuthnError.self) { try Self.validator.effectiveRPID(requested: rpID, for: caller) }
        do {
            _ = try Self.validator.effectiveRPID(requested: rpID, for: caller)
        } catch {
            #expect(error.name == .security)
            #expect(ErrorMapping.pageMessage(for: error) == expected, "\(error.message)")
        }
    }

    @Test func errorsAboutThePagesOwnRequestKeepTheirMessage() {
        for error in [
            WebAuthnError.typeError("challenge is required"), WebAuthnError(name: .syntax, message: "not JSON"),
            .notSupported("The 'credProps' extension is only valid when creating a credential"), ErrorMapping.aborted,
        ] {
            #expect(ErrorMapping.pageMessage(for: error) == error.message)
        }
    }
}
