import SoftToken
import Testing

@testable import TokenTool

/// What `webauthn-bridge token` reads and prints, apart from the command line around it.
struct TokenToolTests {
    @Test(arguments: [
        ("auto", PresenceMode.automatic, "auto"), ("automatic", .automatic, "auto"), ("deny", .deny, "deny"),
        ("delay:0", .delay(milliseconds: 0), "delay:0"), ("delay:250", .delay(milliseconds: 250), "delay:250"),
        ("signal", .onSignal, "signal"),
    ])
    func presenceIsReadAndShownBack(text: String, mode: PresenceMode, shown: String) {
        #expect(PresenceOption.parse(text) == mode)
        #expect(PresenceOption.text(mode) == shown)
    }

    @Test(arguments: ["", "Auto", "delay:", "delay:-1", "delay:1.5", "sometimes", " deny"])
    func otherPresenceTextsAreRefused(text: String) {
        #expect(PresenceOption.parse(text) == nil)
    }

    @Test func aU2FOnlyKeySaysWhatItCannotDo() throws {
        let profile = try #require(SoftTokenProfile.named("u2f-only"))
        #expect(
            TokenDescription.capabilities(profile.configuration)
                == "U2F; ES256; no discoverable credentials, no PIN, no user verification")
    }

    @Test func aCTAP20KeyHasNoPinUvAuthToken() throws {
        let profile = try #require(SoftTokenProfile.named("ctap20"))
        let line = TokenDescription.capabilities(profile.configuration)
        #expect(line.hasPrefix("CTAP 2.0"))
        #expect(line.contains("PIN protocols 1;") && line.contains("no pinUvAuthToken"))
    }

    @Test func anOrderOfNoCredentialsOtherThanItsVersionsIsShown() throws {
        var configuration = try #require(SoftTokenProfile.named("yubikey5")).configuration
        #expect(!TokenDescription.capabilities(configuration).contains("no credentials"))
        configuration.noCredentialsOrder = .atOnce
        #expect(!TokenDescription.capabilities(configuration).contains("no credentials"))
        configuration.noCredentialsOrder = .afterTouch
        #expect(TokenDescription.capabilities(configuration).contains("; \"no credentials\" after the touch;"))
        configuration.ctap21 = false
        #expect(!TokenDescription.capabilities(configuration).contains("no credentials"))
    }

    @Test func hexKeepsLeadingZeros() {
        #expect(TokenDescription.hex([0x00, 0x0A, 0xFF]) == "000aff")
    }

    @Test(arguments: [
        ("https://example.com/appid.json", "https://example.com"),
        ("https://login.example.com:8443/u2f", "https://login.example.com:8443"),
        ("not a url", "not a url"),
    ])
    func theRegisteringFacetIsTheAppIDsOrigin(appid: String, origin: String) {
        #expect(U2FRegistration.origin(of: appid) == origin)
    }
}
