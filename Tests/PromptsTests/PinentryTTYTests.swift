import Foundation
import Glibc
import Testing

@testable import Prompts

/// The real Debian `pinentry-tty` on a pseudo-terminal: the test reads its screen and types like a user.
private let pinentryTTY = "/usr/bin/pinentry-tty"

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: pinentryTTY), "needs Debian's pinentry-tty"))
struct PinentryTTYTests {
    let terminal: PseudoTerminal
    let prompt: PinentryPrompt

    init() throws {
        _ = ignoreSIGPIPE
        terminal = try PseudoTerminal()
        prompt = PinentryPrompt(
            program: pinentryTTY, environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm"],
            ttyName: terminal.slavePath)
    }

    let request = PINRequest(rpID: "example.com", origin: "https://login.example.com")

    @Test func typedPINIsReturnedAndWhoAsksIsOnScreen() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN:"))
        #expect(terminal.screen.contains("example.com"))
        #expect(terminal.screen.contains("https://login.example.com"))
        #expect(!terminal.echoIsOn)
        terminal.type("123456\n")
        #expect(read.join() == .pin("123456"))
        #expect(!terminal.screen.contains("123456"))  // typed with echo off
        #expect(terminal.echoIsOn)
        #expect(processIsGone(prompt.lastChildPID))
    }

    /// Deciding that a PIN was wrong is the key's job; the caller then asks again with the retry message.
    @Test func wrongThenRightShowsTheRetryMessage() throws {
        let first = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN:"))
        terminal.type("111111\n")
        #expect(first.join() == .pin("111111"))

        var retry = request
        retry.attemptsLeft = 5
        retry.retryMessage = "Wrong PIN. 5 attempts left."
        let second = Background { [prompt, retry] in outcome { try prompt.readPIN(retry) } }
        #expect(terminal.waitFor("PIN:", occurrences: 2))
        #expect(terminal.screen.contains("Wrong PIN. 5 attempts left."))
        terminal.type("246810\n")
        #expect(second.join() == .pin("246810"))
    }

    @Test func cancelKillsPinentryPromptlyAndRestoresTheTerminal() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("PIN:"))
        let pid = prompt.lastChildPID
        var result: Outcome?
        let seconds = elapsed {
            prompt.cancel()
            result = read.join()
        }
        #expect(result == .error(.cancelled))
        #expect(seconds < 3, "SIGINT's grace (1.5 s) plus SIGTERM's at most")
        #expect(processIsGone(pid))
        #expect(terminal.echoIsOn)
    }

    @Test func newPINIsAskedTwiceUntilBothEntriesMatch() throws {
        let newPIN = NewPINRequest(rpID: "example.com", origin: "https://login.example.com", minimumLength: 6)
        let read = Background { [prompt] in outcome { try prompt.readNewPIN(newPIN) } }
        #expect(terminal.waitFor("New PIN:"))
        #expect(terminal.screen.contains("https://login.example.com"))
        terminal.type("1234\n")  // too short for this key
        #expect(terminal.waitFor("at least 6 characters"))
        #expect(terminal.waitFor("New PIN:", occurrences: 2))
        terminal.type("135790\n")
        #expect(terminal.waitFor("Repeat PIN:"))
        terminal.type("135799\n")
        #expect(terminal.waitFor("do not match"))
        #expect(terminal.waitFor("New PIN:", occurrences: 3))
        terminal.type("135790\n")
        #expect(terminal.waitFor("Repeat PIN:", occurrences: 2))
        terminal.type("135790\n")
        #expect(read.join() == .pin("135790"))
    }
}

private let pinentryCurses = "/usr/bin/pinentry-curses"

/// Debian's default `pinentry` on a machine without a desktop: a full-screen dialog on the terminal.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: pinentryCurses), "needs pinentry-curses"))
struct PinentryCursesTests {
    let terminal: PseudoTerminal
    let prompt: PinentryPrompt

    init() throws {
        _ = ignoreSIGPIPE
        terminal = try PseudoTerminal()
        prompt = PinentryPrompt(
            program: pinentryCurses,
            environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm", "LC_CTYPE": "C.UTF-8"],
            ttyName: terminal.slavePath)
    }

    let request = PINRequest(rpID: "example.com", origin: "https://login.example.com")

    @Test func typedPINIsReturnedAndTheTerminalRestored() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("<Cancel>"))
        #expect(terminal.screen.contains("example.com"))
        terminal.type("5678\r")
        #expect(read.join() == .pin("5678"))
        #expect(terminal.echoIsOn)
        #expect(processIsGone(prompt.lastChildPID))
    }

    @Test func cancelClosesTheDialogAndRestoresTheTerminal() throws {
        let read = Background { [prompt, request] in outcome { try prompt.readPIN(request) } }
        #expect(terminal.waitFor("<Cancel>"))
        #expect(!terminal.echoIsOn)
        prompt.cancel()
        #expect(read.join() == .error(.cancelled))
        #expect(processIsGone(prompt.lastChildPID))
        #expect(terminal.echoIsOn)
    }
}
