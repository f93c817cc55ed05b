import Testing

@testable import WebAuthn

struct WebAuthnErrorTests {
    @Test func errorFrameMemberCarriesTheDOMExceptionName() {
        let error = WebAuthnError(name: .security, message: "The relying party ID \"com\" is a public suffix")
        #expect(
            error.json.serializedString
                == #"{"name":"SecurityError","message":"The relying party ID \"com\" is a public suffix"}"#)
        #expect(WebAuthnError.typeError("x").json["name"] == "TypeError")
        #expect(WebAuthnError.notAllowed("x").name.rawValue == "NotAllowedError")
    }
}
