import Secrets
import Testing

@testable import Prompts

/// PIN set-up through pinentry (scripted peer) and the length rules behind it.
struct NewPINTests {
    init() { _ = ignoreSIGPIPE }

    let request = NewPINRequest(rpID: "example.com", origin: "https://login.example.com", minimumLength: 4)

    @Test func tooShortThenMismatchThenMatchReturnsThePIN() throws {
        let peer = ScriptedPeer(getpin: [
            ["D 12", "OK"],
            ["D 123456", "OK"], ["D 654321", "OK"],
            ["D 123456", "OK"], ["D 123456", "OK"],
        ])
        #expect(outcome { try peer.prompt().readNewPIN(request) } == .pin("123456"))
        let asked = peer.commands.filter { $0.hasPrefix("SETPROMPT") || $0.hasPrefix("SETERROR") }
        #expect(
            asked == [
                "SETPROMPT New PIN:",
                "SETPROMPT New PIN:", "SETERROR The PIN must have at least 4 characters.",
                "SETPROMPT Repeat PIN:",
                "SETPROMPT New PIN:", "SETERROR The PINs do not match. Try again.",
                "SETPROMPT Repeat PIN:",
            ])
        #expect(peer.commands.filter { $0 == "GETPIN" }.count == 5)
        #expect(
            peer.commands.contains {
                $0.hasPrefix("SETDESC Set a PIN") && $0.contains("https://login.example.com")
                    && $0.contains("example.com")
            })
    }

    /// The key's owner setting a PIN themselves (`key pin`) sees why, not a site asking.
    @Test func aReasonReplacesTheSiteLine() throws {
        var own = request
        own.reason = "You are changing the PIN of your security key."
        let text = NewPINFlow(request: own).promptText
        #expect(text.contains("You are changing the PIN") && !text.contains("login.example.com"))
        #expect(text.contains("at least 4 characters"))
    }

    /// CTAP counts code points, not bytes: "ééé" is 6 bytes but only 3 characters.
    @Test func lengthIsCountedInCodePoints() throws {
        let peer = ScriptedPeer(getpin: [
            ["D %C3%A9%C3%A9%C3%A9", "OK"],
            ["D %C3%A9%C3%A9%C3%A9%C3%A9", "OK"], ["D %C3%A9%C3%A9%C3%A9%C3%A9", "OK"],
        ])
        #expect(outcome { try peer.prompt().readNewPIN(request) } == .pin("éééé"))
        #expect(
            peer.commands.filter { $0.hasPrefix("SETERROR") } == ["SETERROR The PIN must have at least 4 characters."])
    }

    @Test func cancelOnTheRepeatCancelsTheWholeSetUp() throws {
        let peer = ScriptedPeer(getpin: [["D 123456", "OK"], ["ERR 83886179 Operation cancelled"]])
        #expect(outcome { try peer.prompt().readNewPIN(request) } == .error(.cancelled))
    }

    @Test func initialRetryMessageIsShownFirst() throws {
        var retry = request
        retry.retryMessage = "The key refused that PIN."
        let peer = ScriptedPeer(getpin: [["D 123456", "OK"], ["D 123456", "OK"]])
        #expect(outcome { try peer.prompt().readNewPIN(retry) } == .pin("123456"))
        #expect(peer.commands.filter { $0.hasPrefix("SETERROR") } == ["SETERROR The key refused that PIN."])
    }

    @Test(arguments: [
        ("1234", 4), ("été", 3), ("日本語の", 4), ("", 0), ("🔑🔑", 2),
    ])
    func codePointCount(text: String, count: Int) {
        #expect(Array(text.utf8).withUnsafeBytes { PINRules.codePointCount($0) } == count)
    }

    @Test func invalidUTF8HasNoCodePointCount() {
        #expect([UInt8]([0x31, 0xC3, 0x28]).withUnsafeBytes { PINRules.codePointCount($0) } == nil)
    }

    @Test(
        arguments: [
            ("123", 4, "The PIN must have at least 4 characters."),
            ("1234", 4, nil),
            ("12345", 6, "The PIN must have at least 6 characters."),
            (String(repeating: "7", count: 63), 4, nil),
            (String(repeating: "7", count: 64), 4, "The PIN is too long (at most 63 bytes)."),
            ("12\u{0}34", 4, "The PIN contains characters that cannot be used."),
        ] as [(String, Int, String?)])
    func lengthRules(pin: String, minimum: Int, problem: String?) {
        #expect(PINRules.problem(with: SecretBytes(Array(pin.utf8)), minimumLength: minimum) == problem)
    }
}
