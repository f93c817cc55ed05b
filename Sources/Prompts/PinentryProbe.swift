import Processes
import Secrets

/// What a pinentry does when the host starts it for a browser launched from the desktop: in a session of its own,
/// with no terminal and no `GPG_TTY`, with the user's display variables. Doctor runs it instead of trusting that a
/// program on PATH can ask: pinentry-curses, Debian's default `pinentry`, cannot without a terminal.
///
/// It asks the pinentry its flavour (`GETINFO flavor`: "gnome3", "qt", "gtk2", or "gtk2:curses" for a graphical one
/// falling back to curses for want of a display, "curses", "tty"). A terminal flavour is then asked for a PIN, which
/// with no terminal fails at once with the pinentry's own error and shows nothing; a graphical one is not, so
/// doctor never opens a dialog.
public enum PinentryProbe {
    public enum Outcome: Equatable, Sendable {
        /// It will open a window: the flavour it reported.
        case graphical(flavor: String)
        /// It needs a terminal, which a browser started from the desktop does not have: its flavour, and what it
        /// answered to GETPIN there.
        case needsTerminal(flavor: String, error: String)
        /// It did not start or did not speak Assuan.
        case broken(String)
    }

    public static func run(program: String, environment: [String: String]) -> Outcome {
        var detached = environment
        detached["GPG_TTY"] = nil
        // setsid(1): a new session has no controlling terminal, as under a browser started from the desktop.
        let setsid = ChildProcess.resolveExecutable("setsid", environment: ["PATH": "/usr/bin:/bin"])
        let prompt = PinentryPrompt(
            program: program, environment: detached, ttyName: "", launcher: setsid.map { [$0] } ?? [])
        var flavor = ""
        do {
            return try prompt.session { connection throws(PromptError) -> Outcome in
                let reply = ZeroingBuffer()
                try connection.transact("GETINFO flavor", data: reply)
                flavor = String(decoding: reply.bytes, as: UTF8.self)
                // The flavour in use: "gtk2:curses" is gtk2 falling back to curses.
                let inUse = flavor.split(separator: ":").last.map(String.init) ?? flavor
                guard inUse == "curses" || inUse == "tty" else { return .graphical(flavor: flavor) }
                try connection.transact("SETDESC webauthn-bridge doctor: checking the PIN prompt")
                try connection.transact("GETPIN")
                return .needsTerminal(flavor: flavor, error: "it returned a PIN without a terminal")
            }
        } catch {
            guard !flavor.isEmpty else { return .broken("\(error)") }
            // pinentry-tty answers a GETPIN it cannot show with "Operation cancelled".
            let said = error == .cancelled ? "it cancelled at once, having no terminal to ask on" : "\(error)"
            return .needsTerminal(flavor: flavor, error: said)
        }
    }
}
