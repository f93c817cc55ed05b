import Foundation
import Glibc
import Testing

@testable import Prompts

/// pinentry through a scripted Assuan peer: the exact commands we send and every way the peer can answer.
struct PinentryProtocolTests {
    init() { _ = ignoreSIGPIPE }

    let request = PINRequest(
        rpID: "example.com", origin: "https://login.example.com", attemptsLeft: 5,
        retryMessage: "Wrong PIN. 5 attempts left.")

    @Test func sendsTheCommandsGnuPGSendsWithWhoAsksInTheDescription() throws {
        let peer = ScriptedPeer(getpin: [["D 123456", "OK"]])
        #expect(outcome { try peer.prompt().readPIN(request) } == .pin("123456"))
        #expect(
            peer.commands == [
                "OPTION ttyname=/dev/pts/99",
                "OPTION ttytype=xterm",
                "OPTION lc-ctype=C.UTF-8",
                "SETTITLE webauthn-bridge",
                "SETDESC Enter the PIN of your security key.%0A%0ASite: example.com%0A"
                    + "Requested by: https://login.example.com%0A5 attempts left.",
                "SETPROMPT PIN:",
                "SETERROR Wrong PIN. 5 attempts left.",
                "GETPIN",
                "BYE",
            ])
    }

    @Test func percentAndLineBreaksInTheDescriptionAreEscaped() throws {
        let peer = ScriptedPeer(getpin: [["D 123456", "OK"]])
        let odd = PINRequest(rpID: "example.com", origin: "https://a%b.example.com\r\nGETPIN")
        _ = outcome { try peer.prompt().readPIN(odd) }
        #expect(peer.commands.contains { $0.hasSuffix("Requested by: https://a%25b.example.com%0D%0AGETPIN") })
        #expect(peer.commands.filter { $0 == "GETPIN" }.count == 1)
    }

    @Test(arguments: [
        (["D 12%2534%0A", "OK"], "12%34\n"),
        (["D 12", "D 34", "D %25x", "OK"], "1234%x"),
        (["S PASSPHRASE_QUALITY 10", "# a comment", "D 9876", "OK"], "9876"),
        (["D %C3%A9t%C3%A9!", "OK"], "été!"),
        (["D 1%zz2", "OK"], "1%zz2"),  // a % without two hex digits is literal
    ])
    func dataLinesArePercentDecodedAndJoined(reply: [String], pin: String) throws {
        let peer = ScriptedPeer(getpin: [reply])
        #expect(outcome { try peer.prompt().readPIN(PINRequest(rpID: "a.com", origin: "https://a.com")) } == .pin(pin))
    }

    @Test(arguments: [
        "ERR 83886179 Operation cancelled <Pinentry>",
        "ERR 83886278 Fully canceled <Pinentry>",
        "ERR 99 Operation cancelled",
    ])
    func cancelErrorsMeanCancelled(reply: String) throws {
        let peer = ScriptedPeer(getpin: [[reply]])
        #expect(outcome { try peer.prompt().readPIN(request) } == .error(.cancelled))
        #expect(peer.commands.last == "BYE")  // still listening: closed politely
        #expect(processIsGone(try #require(peer.pid)))
    }

    @Test func otherErrorsFailWithThePinentryMessage() throws {
        let peer = ScriptedPeer(getpin: [["ERR 83918950 Inappropriate ioctl for device <Pinentry>"]])
        let result = outcome { try peer.prompt().readPIN(request) }
        #expect(result == .error(.failed("pinentry refused GETPIN: Inappropriate ioctl for device <Pinentry>")))
    }

    /// Data already received is dropped when the command then fails: it never reaches an error message.
    @Test(arguments: [
        (["D 135790", "ERR 83886179 Operation cancelled"], PromptError.cancelled),
        (["D 135790", "EXIT"], .failed("pinentry exited unexpectedly (during GETPIN)")),
        (
            ["D 135790", "135790"],
            .failed("pinentry sent a line that is not Assuan (is it really a pinentry program?)")
        ),
    ])
    func partialDataIsDroppedWhenTheCommandFails(reply: [String], error: PromptError) throws {
        let peer = ScriptedPeer(getpin: [reply])
        #expect(outcome { try peer.prompt().readPIN(request) } == .error(error))
    }

    @Test func inquiryIsAnsweredWithEnd() throws {
        let peer = ScriptedPeer(getpin: [["INQUIRE QUALITY", "READ", "D 4567", "OK"]])
        #expect(outcome { try peer.prompt().readPIN(request) } == .pin("4567"))
        #expect(peer.commands.suffix(3) == ["GETPIN", "END", "BYE"])
    }

    @Test func programExitingMidProtocolFails() throws {
        let peer = ScriptedPeer(getpin: [["EXIT"]])
        let prompt = try peer.prompt()
        #expect(
            outcome { try prompt.readPIN(request) } == .error(.failed("pinentry exited unexpectedly (during GETPIN)")))
        #expect(processIsGone(prompt.lastChildPID))
    }

    @Test(arguments: [["HELLO there"], ["EXIT"], ["ERR 1 go away"]])
    func missingGreetingFails(greeting: [String]) throws {
        let peer = ScriptedPeer(greeting: greeting)
        let result = outcome { try peer.prompt().readPIN(request) }
        guard case .error(.failed(let message)) = result else {
            Issue.record("expected .failed, got \(result)")
            return
        }
        #expect(message.contains("greet") || message.contains("exited"))
    }

    @Test func missingProgramIsUnavailable() {
        let prompt = PinentryPrompt(program: "no-such-pinentry-\(getpid())", environment: ["PATH": "/usr/bin:/bin"])
        #expect(
            outcome { try prompt.readPIN(request) }
                == .error(.unavailable("pinentry program \"no-such-pinentry-\(getpid())\" not found or not executable"))
        )
        let absolute = PinentryPrompt(program: "/nonexistent/pinentry", environment: [:])
        guard case .error(.unavailable) = outcome({ try absolute.readPIN(request) }) else {
            Issue.record("expected .unavailable")
            return
        }
    }

    @Test func shortPINIsAskedAgainWithoutReachingTheKey() throws {
        let peer = ScriptedPeer(getpin: [["OK"], ["D 12", "OK"], ["D 1234", "OK"]])
        #expect(
            outcome { try peer.prompt().readPIN(PINRequest(rpID: "a.com", origin: "https://a.com")) } == .pin("1234"))
        #expect(
            peer.commands.filter { $0.hasPrefix("SETERROR") }
                == Array(repeating: "SETERROR The PIN must have at least 4 characters.", count: 2))
    }

    @Test(arguments: [0, ScriptedPeer.everyInterrupt])
    func cancelFromAnotherThreadEndsTheReadPromptlyAndReapsTheChild(interruptsIgnored: Int) throws {
        let peer = ScriptedPeer(getpin: [["HANG"]], interruptsIgnored: interruptsIgnored)
        let prompt = try peer.prompt()
        let read = Background { outcome { try prompt.readPIN(request) } }
        #expect(waitUntil { peer.commands.last == "GETPIN" })
        var result: Outcome?
        let seconds = elapsed {
            prompt.cancel()
            result = read.join()
        }
        #expect(result == .error(.cancelled))
        #expect(seconds < 3)
        #expect(processIsGone(try #require(peer.pid)))
    }

    /// pinentry-tty's SIGINT handler only breaks a read in progress: an interrupt that lands just before the
    /// read is lost. Cancelling must still end it by interrupt (so it restores the terminal), not by SIGTERM.
    @Test func anInterruptThatIsLostIsRepeated() throws {
        let peer = ScriptedPeer(getpin: [["HANG"]], interruptsIgnored: 1)
        let prompt = try peer.prompt()
        let read = Background { outcome { try prompt.readPIN(request) } }
        #expect(waitUntil { peer.commands.last == "GETPIN" })
        prompt.cancel()
        #expect(read.join() == .error(.cancelled))
        #expect(processIsGone(try #require(peer.pid)))
        #expect(peer.logLines.filter { $0 == "SIGINT" }.count == 2)
        #expect(peer.logLines.last == "EXIT ON SIGINT")
    }

    /// A terminal pinentry that ignores the interrupt is killed, which leaves its terminal as it had set it:
    /// the prompt puts back the settings the terminal had before the pinentry started.
    @Test func aPinentryThatHadToBeKilledHasItsTerminalSettingsPutBack() throws {
        let log = try cancelAPinentryThatSwitchedEchoOff(interruptsIgnored: ScriptedPeer.everyInterrupt)
        #expect(!log.contains("EXIT ON SIGINT"))
    }

    /// A pinentry ended by the interrupt before it could put the terminal back (curses resets its handler, so a
    /// repeated interrupt can end it in the middle of that): the prompt puts the settings back itself.
    @Test func aPinentryInterruptedBeforeItRestoredTheTerminalHasItsSettingsPutBack() throws {
        let log = try cancelAPinentryThatSwitchedEchoOff(interruptsIgnored: 0)
        #expect(log.last == "EXIT ON SIGINT")
    }

    /// Cancels a peer that switched echo off on a terminal and never switches it back; checks the terminal ends
    /// with echo on and the peer gone. Returns the peer's log.
    private func cancelAPinentryThatSwitchedEchoOff(interruptsIgnored: Int) throws -> [String] {
        let terminal = try PseudoTerminal()
        #expect(terminal.echoIsOn)
        let peer = ScriptedPeer(getpin: [["HANG"]], interruptsIgnored: interruptsIgnored, echoOff: terminal.slavePath)
        let prompt = try peer.prompt(ttyName: terminal.slavePath)
        let read = Background { outcome { try prompt.readPIN(request) } }
        #expect(waitUntil { peer.commands.last == "GETPIN" })
        #expect(!terminal.echoIsOn)
        prompt.cancel()
        #expect(read.join() == .error(.cancelled))
        #expect(processIsGone(try #require(peer.pid)))
        #expect(terminal.echoIsOn)
        return peer.logLines
    }

    @Test func secondConcurrentReadIsRefused() throws {
        let peer = ScriptedPeer(getpin: [["HANG"]])
        let prompt = try peer.prompt()
        let first = Background { outcome { try prompt.readPIN(request) } }
        #expect(waitUntil { peer.commands.last == "GETPIN" })
        #expect(outcome { try prompt.readPIN(request) } == .error(.failed("another PIN prompt is already open")))
        prompt.cancel()
        #expect(first.join() == .error(.cancelled))
    }

    @Test func cancelWithoutAReadDoesNotAffectTheNextRead() throws {
        let peer = ScriptedPeer(getpin: [["D 123456", "OK"]])
        let prompt = try peer.prompt()
        prompt.cancel()
        #expect(outcome { try prompt.readPIN(request) } == .pin("123456"))
    }

    @Test func messageIsShownWithMESSAGE() throws {
        let peer = ScriptedPeer()
        try peer.prompt().showMessage("Your security key is locked.\nReset it to use it again.")
        #expect(
            peer.commands.suffix(3) == [
                "SETDESC Your security key is locked.%0AReset it to use it again.", "MESSAGE", "BYE",
            ])
    }
}

/// Polls `condition` for at most `seconds`.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
