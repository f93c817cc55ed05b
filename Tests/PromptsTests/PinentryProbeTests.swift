import Foundation
import Processes
import Testing

@testable import Prompts

/// PinentryProbe starts a pinentry as a browser started from the desktop would have the host start it: no terminal.
/// With the real terminal pinentries (scripts/test.sh installs pinentry-curses and pinentry-tty) and a scripted
/// graphical one.
struct PinentryProbeTests {
    let directory = TemporaryDirectory()

    // A pinentry that exits at once is written to: as in doctor, that must be EPIPE, not the end of the test run.
    init() { _ = ignoreSIGPIPE }

    /// The PATH of the tests, where the real pinentries are.
    static let environment = ["PATH": "/usr/bin:/bin", "TERM": "xterm"]

    @Test func pinentryCursesFailsWithoutATerminalAndSaysWhy() throws {
        let curses = try #require(ChildProcess.resolveExecutable("pinentry-curses", environment: Self.environment))
        let outcome = PinentryProbe.run(program: curses, environment: Self.environment)
        guard case .needsTerminal(let flavor, let error) = outcome else {
            Issue.record("pinentry-curses: \(outcome)")
            return
        }
        #expect(flavor == "curses")
        #expect(error.contains("Inappropriate ioctl for device"), "\(error)")
    }

    @Test func pinentryCursesFailsEvenWhenTheDoctorRunsInATerminal() throws {
        // GPG_TTY names a terminal the doctor has: the browser's host would not have it, so the probe drops it.
        let terminal = try PseudoTerminal()
        var environment = Self.environment
        environment["GPG_TTY"] = terminal.slavePath
        let curses = try #require(ChildProcess.resolveExecutable("pinentry-curses", environment: environment))
        guard case .needsTerminal = PinentryProbe.run(program: curses, environment: environment) else {
            Issue.record("pinentry-curses found a terminal")
            return
        }
    }

    @Test func pinentryTTYGivesUpWithoutATerminal() throws {
        let tty = try #require(ChildProcess.resolveExecutable("pinentry-tty", environment: Self.environment))
        let outcome = PinentryProbe.run(program: tty, environment: Self.environment)
        #expect(
            outcome == .needsTerminal(flavor: "tty", error: "it cancelled at once, having no terminal to ask on"))
    }

    @Test func aGraphicalPinentryIsAskedOnlyItsFlavourNeverForAPIN() throws {
        let log = directory.path + "/commands"
        let program = directory.write(
            "pinentry-gnome3",
            """
            #!/bin/sh
            echo "OK Pleased to meet you"
            while read -r line; do
              echo "$line" >> \(log)
              case "$line" in
                "GETINFO flavor") echo "D gnome3"; echo OK ;;
                BYE) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done
            """, executable: true)
        #expect(PinentryProbe.run(program: program, environment: Self.environment) == .graphical(flavor: "gnome3"))
        let commands = try String(contentsOfFile: log, encoding: .utf8)
        #expect(commands.contains("GETINFO flavor") && !commands.contains("GETPIN"), "\(commands)")
        #expect(!commands.contains("ttyname"), "\(commands)")
    }

    @Test func aProgramThatIsNoPinentryIsBroken() {
        let program = directory.write("not-a-pinentry", "#!/bin/sh\necho hello\n", executable: true)
        guard case .broken = PinentryProbe.run(program: program, environment: Self.environment) else {
            Issue.record("accepted a program that does not speak Assuan")
            return
        }
    }
}
