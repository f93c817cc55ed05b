import Glibc
import Processes

/// Chooses how to ask for a PIN, in the order README.md's Configuration section gives:
/// `WEBAUTHN_BRIDGE_PINENTRY` > the config file's program > a graphical pinentry on PATH when a display is
/// available > `pinentry` on PATH > `/dev/tty` > nothing.
///
/// A graphical one first, as GnuPG's users set `pinentry-program`: Debian's `pinentry` is pinentry-curses unless a
/// graphical one is installed, and a browser started from the desktop gives the host no terminal, where curses
/// fails every PIN ("Inappropriate ioctl for device").
///
/// An explicitly named program is used even when it does not exist: the read then fails with
/// `.unavailable` naming it, which beats silently falling back to something the user did not configure.
public enum PromptSelector {
    public static let environmentVariable = "WEBAUTHN_BRIDGE_PINENTRY"
    /// The graphical pinentries by preference (the program names: Debian's pinentry-gtk2 installs pinentry-gtk-2).
    public static let graphicalPinentries = ["pinentry-gnome3", "pinentry-qt", "pinentry-gtk-2"]

    public static func select(environment: [String: String], configuredProgram: String?) -> (any PINPrompt)? {
        select(environment: environment, configuredProgram: configuredProgram, ttyPath: "/dev/tty")
    }

    /// The prompt for a host with no terminal, as under a browser started from the desktop (doctor's view).
    public static func selectWithoutTerminal(environment: [String: String], configuredProgram: String?)
        -> (any PINPrompt)?
    {
        select(environment: environment, configuredProgram: configuredProgram, ttyPath: "")
    }

    /// `ttyPath` is a parameter so tests can offer a pseudo-terminal or a path that cannot be opened.
    static func select(
        environment: [String: String], configuredProgram: String?,
        ttyPath: String
    ) -> (any PINPrompt)? {
        let launcher = ParentDeathSignal.launcher
        if let program = environment[environmentVariable], !program.isEmpty {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        if let program = configuredProgram, !program.isEmpty {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        if hasDisplay(environment),
            let program = graphicalPinentries.lazy.compactMap({
                ChildProcess.resolveExecutable($0, environment: environment)
            }).first
        {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        if let program = ChildProcess.resolveExecutable("pinentry", environment: environment) {
            return PinentryPrompt(program: program, environment: environment, launcher: launcher)
        }
        let fd = open(ttyPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            return TerminalPrompt(ttyPath: ttyPath)
        }
        return nil
    }

    /// An X11 or Wayland display the pinentry can open a window on.
    public static func hasDisplay(_ environment: [String: String]) -> Bool {
        ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
    }
}
