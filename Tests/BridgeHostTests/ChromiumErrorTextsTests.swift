import Testing
import WebAuthn

@testable import BridgeHost

/// extension/common/chromium-texts.js is the one table of Chromium's texts the bridge gives pages: the
/// extension imports it, and the host's copies (`ErrorMapping.PageText`, the abort) must say the same.
struct ChromiumErrorTextsTests {
    static let texts = ExtensionData.read("chromium-texts.js")

    @Test(arguments: [
        ("notAllowed", ErrorMapping.PageText.notAllowed),
        ("credentialExcluded", ErrorMapping.PageText.credentialExcluded),
        ("badRelyingPartyID", ErrorMapping.PageText.badRelyingPartyID),
        ("invalidDomain", ErrorMapping.PageText.invalidDomain),
        ("unknown", ErrorMapping.PageText.unknown),
        ("aborted", ErrorMapping.aborted.message),
    ])
    func hostTextIsTheTables(key: String, text: String) {
        #expect(Self.texts[key]?.stringValue == text)
    }
}
