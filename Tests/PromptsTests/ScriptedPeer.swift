import Foundation
import Glibc

@testable import Prompts

/// A scripted Assuan server (python3) for the pinentry branches a real terminal cannot reach.
///
/// It greets, logs every command it receives to `log` (one line each, after a `PID n` line), answers `OK`
/// to everything, and answers the n-th GETPIN with `getpin[n]`. Special reply lines: `EXIT` (die with
/// status 3), `HANG` (sleep, 30 s at most), `READ` (read and log one line from us). Each SIGINT is logged
/// (`SIGINT`); the first `interruptsIgnored` do nothing, the next ends it (`EXIT ON SIGINT`). With `echoOff`
/// it switches echo off on that terminal first, as a terminal pinentry does while it asks.
struct ScriptedPeer {
    var greeting: [String] = ["OK Pleased to meet you"]
    var getpin: [[String]] = []
    var replies: [String: [String]] = [:]
    var interruptsIgnored = 0
    var echoOff: String? = nil
    /// Enough never to end on SIGINT.
    static let everyInterrupt = 1_000_000

    let directory = TemporaryDirectory()
    var logPath: String { "\(directory.path)/commands.log" }

    /// Writes this peer's configuration; the script itself is shared (see `script`).
    func install() throws -> String {
        let config: [String: Any] = [
            "log": logPath, "greeting": greeting, "getpin": getpin, "on": replies,
            "interruptsIgnored": interruptsIgnored,
            "echoOff": echoOff ?? "",
        ]
        _ = directory.write(
            "config.json",
            String(
                decoding: try JSONSerialization.data(withJSONObject: config),
                as: UTF8.self))
        return Self.script
    }

    /// One script for the whole test run, written before its first use and never again: executing a file
    /// that any process holds open for writing fails with ETXTBSY, and a child another test is spawning at
    /// that moment briefly holds copies of all our descriptors (until its exec). The pause lets such a child
    /// get past its exec before anyone runs the script.
    static let script: String = {
        let path = scriptDirectory.write(
            "fake-pinentry",
            """
            #!/usr/bin/python3
            import json, os, signal, sys, termios, time
            cfg = json.load(open(os.environ["FAKE_PINENTRY_CONFIG"]))
            log = open(cfg["log"], "a", buffering=1)
            log.write("PID %d\\n" % os.getpid())
            interrupts = [0]
            def on_interrupt(number, frame):
                interrupts[0] += 1
                log.write("SIGINT\\n")
                if interrupts[0] > cfg["interruptsIgnored"]:
                    log.write("EXIT ON SIGINT\\n")
                    os._exit(2)
            signal.signal(signal.SIGINT, on_interrupt)
            if cfg["echoOff"]:
                tty = os.open(cfg["echoOff"], os.O_RDWR | os.O_NOCTTY)
                settings = termios.tcgetattr(tty)
                settings[3] &= ~termios.ECHO
                termios.tcsetattr(tty, termios.TCSANOW, settings)
            def act(lines):
                for line in lines:
                    if line == "EXIT":
                        sys.exit(3)
                    elif line == "HANG":
                        time.sleep(30)  # bounded: a failing test must not leave it behind for good
                        sys.exit(4)
                    elif line == "READ":
                        log.write(sys.stdin.readline().rstrip("\\n") + "\\n")
                    else:
                        sys.stdout.write(line + "\\n")
                        sys.stdout.flush()
            act(cfg["greeting"])
            replies = cfg["getpin"]
            while True:
                line = sys.stdin.readline()
                if not line:
                    break
                line = line.rstrip("\\n")
                log.write(line + "\\n")
                verb = line.split(" ", 1)[0]
                if verb in cfg["on"]:
                    act(cfg["on"][verb])
                elif verb == "GETPIN":
                    act(replies.pop(0) if replies else ["ERR 83886179 Operation cancelled <Pinentry>"])
                elif verb == "BYE":
                    act(["OK closing connection"])
                    break
                else:
                    act(["OK"])

            """, executable: true)
        usleep(300_000)
        atexit { try? FileManager.default.removeItem(atPath: ScriptedPeer.scriptDirectory.path) }
        return path
    }()
    private static let scriptDirectory = TemporaryDirectory()

    /// The commands the peer received, in order (without its PID and signal lines).
    var commands: [String] {
        logLines.filter { !$0.hasPrefix("PID ") && !$0.hasPrefix("SIGINT") && $0 != "EXIT ON SIGINT" }
    }

    /// Everything the peer logged, signals included.
    var logLines: [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    var pid: pid_t? {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("PID ") }.flatMap { pid_t($0.dropFirst(4)) }
    }

    /// A prompt on this peer with a fixed environment, so the OPTION lines are predictable.
    func prompt(ttyName: String? = nil) throws -> PinentryPrompt {
        let script = try install()
        var environment = Self.environment
        environment["FAKE_PINENTRY_CONFIG"] = "\(directory.path)/config.json"
        return PinentryPrompt(program: script, environment: environment, ttyName: ttyName)
    }

    static let environment = [
        "PATH": "/usr/bin:/bin", "GPG_TTY": "/dev/pts/99", "TERM": "xterm",
        "LC_CTYPE": "C.UTF-8",
    ]
}
