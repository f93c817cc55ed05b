import Foundation
import Glibc
import Testing

@testable import Prompts

/// The /dev/tty fallback, on a pseudo-terminal standing in for the user's terminal.
struct TerminalPromptTests {
    let terminal: PseudoTerminal
    let prompt: TerminalPrompt
    let request = PINRequest(rpID: "example.com", origin: "https://login.example.com", attemptsLeft: 7)

    init() throws {
        terminal = try PseudoTerminal()
        prompt = TerminalPrompt(ttyPath: terminal.slavePath)
    }

    @Test func readsThePINWithEchoOffAndRestoresTheTerminal() throws {
        #expect(terminal.echoIsOn)
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN: "))
        #expect(!terminal.echoIsOn)
        #expect(terminal.screen.contains("Site: example.com"))
        #expect(terminal.screen.contains("Requested by: https://login.example.com"))
        #expect(terminal.screen.contains("7 attempts left."))
        terminal.type("4321\n")
        #expect(read.join() == .pin("4321"))
        #expect(!terminal.screen.contains("4321"))
        #expect(terminal.echoIsOn)
    }

    @Test func backspaceAndControlUEditTheLine() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN: "))
        terminal.type("99\u{15}12é\u{7F}3456\u{7F}\r")  // Ctrl-U clears "99"; DEL erases "é" (2 bytes), then "6"
        #expect(read.join() == .pin("12345"))
    }

    @Test(arguments: ["\u{03}", "\u{04}"])
    func controlCOrControlDCancelsAndRestoresTheTerminal(key: String) throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN: "))
        terminal.type(key)
        #expect(read.join() == .error(.cancelled))
        #expect(terminal.echoIsOn)
    }

    @Test func cancelFromAnotherThreadEndsTheReadAndRestoresTheTerminal() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN: "))
        var result: Outcome?
        let seconds = elapsed {
            prompt.cancel()
            result = read.join()
        }
        #expect(result == .error(.cancelled))
        #expect(seconds < 1)
        #expect(terminal.echoIsOn)
    }

    @Test func retryMessageIsShown() throws {
        var retry = request
        retry.retryMessage = "Wrong PIN. 5 attempts left."
        let read = Background { [prompt, retry] in outcome { try prompt.readPIN(retry) } }
        #expect(terminal.waitFor("PIN: "))
        #expect(terminal.screen.contains("Wrong PIN. 5 attempts left."))
        terminal.type("5555\n")
        #expect(read.join() == .pin("5555"))
    }

    @Test func newPINMismatchIsAskedAgain() throws {
        let newPIN = NewPINRequest(rpID: "example.com", origin: "https://login.example.com", minimumLength: 4)
        let read = Background { [prompt] in outcome { try prompt.readNewPIN(newPIN) } }
        #expect(terminal.waitFor("New PIN: "))
        terminal.type("1111\n")
        #expect(terminal.waitFor("Repeat PIN: "))
        terminal.type("2222\n")
        #expect(terminal.waitFor("do not match"))
        #expect(terminal.waitFor("New PIN: ", occurrences: 2))
        terminal.type("3333\n")
        #expect(terminal.waitFor("Repeat PIN: ", occurrences: 2))
        terminal.type("3333\n")
        #expect(read.join() == .pin("3333"))
        #expect(terminal.echoIsOn)
    }

    @Test func messageIsPrintedWithoutTouchingTheSettings() throws {
        try prompt.showMessage("Your security key is locked.")
        #expect(terminal.waitFor("Your security key is locked."))
        #expect(terminal.echoIsOn)
    }

    @Test func terminalThatCannotBeOpenedIsUnavailable() {
        let missing = TerminalPrompt(ttyPath: "/nonexistent/tty")
        guard case .error(.unavailable) = outcome({ try missing.readPIN(request) }) else {
            Issue.record("expected .unavailable")
            return
        }
    }
}
