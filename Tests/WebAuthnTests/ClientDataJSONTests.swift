import Testing

@testable import WebAuthn

struct ClientDataJSONTests {
    let challenge: [UInt8] = Array(0..<32)
    var challengeText: String { Base64URL.encode(challenge) }

    func text(_ type: ClientDataType, _ origin: String, top: String? = nil) throws -> String {
        let caller = try CallerOrigin(origin: origin, topOrigin: top)
        return String(decoding: ClientDataJSON.make(type: type, challenge: challenge, caller: caller), as: UTF8.self)
    }

    @Test func createHasTheFourMembersInChromiumsOrder() throws {
        #expect(
            try text(.create, "https://example.com")
                == #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","origin":"https://example.com","crossOrigin":false}"#
        )
    }

    @Test func getUsesWebAuthnGetAndKeepsThePort() throws {
        #expect(
            try text(.get, "https://example.com:8443")
                == #"{"type":"webauthn.get","challenge":"\#(challengeText)","origin":"https://example.com:8443","crossOrigin":false}"#
        )
    }

    @Test func crossOriginAddsTopOriginAfterCrossOrigin() throws {
        #expect(
            try text(.get, "https://pay.example", top: "https://shop.example")
                == #"{"type":"webauthn.get","challenge":"\#(challengeText)","origin":"https://pay.example","crossOrigin":true,"topOrigin":"https://shop.example"}"#
        )
    }

    @Test func sameOriginTopOriginIsNotRecorded() throws {
        #expect(try !text(.create, "https://example.com", top: "https://example.com").contains("topOrigin"))
    }

    @Test func slashesAreNeverEscapedAndTheResultParses() throws {
        let bytes = try text(.create, "http://localhost:3000")
        #expect(bytes.contains(#""origin":"http://localhost:3000""#))
        #expect(!bytes.contains(#"\/"#))
        let parsed = try JSONValue.parse(bytes)
        #expect(parsed.objectValue?.map(\.0) == ["type", "challenge", "origin", "crossOrigin"])
        #expect(parsed["challenge"] == .string(challengeText))
    }

    @Test(arguments: [
        ("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("\n\t\u{00}\u{1F}", #""\u000a\u0009\u0000\u001f""#),
        ("/é€😀\u{7F}", "\"/é€😀\u{7F}\""), ("", #""""#),
    ])
    func ccdToStringEscapesOnlyQuoteBackslashAndControls(input: String, output: String) throws {
        var out: [UInt8] = []
        ClientDataJSON.appendCCDString(input, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == output)
        #expect(try JSONValue.parse(out) == .string(input))
    }

    @Test func emptyChallengeIsAnEmptyString() throws {
        let caller = try CallerOrigin(origin: "https://example.com", topOrigin: nil)
        let bytes = ClientDataJSON.make(type: .create, challenge: [], caller: caller)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""challenge":"""#))
    }
}
