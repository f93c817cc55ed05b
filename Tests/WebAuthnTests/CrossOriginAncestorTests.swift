import Testing

@testable import WebAuthn

/// A frame of the top-level origin nested under a frame of another origin (A→B→A) is not same-origin with all
/// its ancestors (WebAuthn L3 §5.1.3 step 2): the extension says so with `crossOrigin: true`, and clientDataJSON
/// records crossOrigin true with topOrigin A, as it would for any cross-origin frame.
struct CrossOriginAncestorTests {
    let challenge: [UInt8] = Array(0..<32)

    func clientData(_ origin: String, top: String?, crossOrigin: Bool) throws -> String {
        let caller = try CallerOrigin(origin: origin, topOrigin: top, crossOrigin: crossOrigin)
        return String(decoding: ClientDataJSON.make(type: .get, challenge: challenge, caller: caller), as: UTF8.self)
    }

    @Test func aFrameOfTheTopOriginUnderAnotherOriginIsCrossOrigin() throws {
        #expect(
            try clientData("https://a.example", top: "https://a.example", crossOrigin: true)
                .hasSuffix(#""origin":"https://a.example","crossOrigin":true,"topOrigin":"https://a.example"}"#))
    }

    @Test func withoutTheFlagASameOriginTopIsNotCrossOrigin() throws {
        #expect(
            try clientData("https://a.example", top: "https://a.example", crossOrigin: false)
                .hasSuffix(#""crossOrigin":false}"#))
    }

    @Test func theFlagWithoutATopOriginChangesNothing() throws {
        #expect(try !CallerOrigin(origin: "https://a.example", topOrigin: nil, crossOrigin: true).isCrossOrigin)
    }
}
