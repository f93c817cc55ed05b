import BridgeHost
import Prompts

extension Doctor {
    /// The PIN prompt as the host will get it when the browser was started from the desktop: no terminal. The
    /// pinentry the host would choose there is started that way (PinentryProbe); a terminal one (Debian's default
    /// `pinentry` is pinentry-curses) fails every PIN there, which a look at PATH alone would call fine.
    func pinentry() -> Check {
        let configured = (try? HostConfiguration.load(environment: environment))?.pinentryProgram
        let graphical = "sudo apt install pinentry-gnome3 (or pinentry-qt / pinentry-gtk2): the bridge prefers it"
        guard
            let prompt = PromptSelector.selectWithoutTerminal(environment: environment, configuredProgram: configured)
                as? PinentryPrompt
        else {
            return Check(
                name: "PIN prompt", status: .warn,
                detail: "no pinentry program: a browser started from the desktop has no terminal to ask on, so keys "
                    + "with a PIN cannot be used", fix: graphical + ", or set WEBAUTHN_BRIDGE_PINENTRY")
        }
        switch PinentryProbe.run(program: prompt.program, environment: environment) {
        case .graphical(let flavor):
            return Check(name: "PIN prompt", status: .ok, detail: "\(prompt.program) (\(flavor))", fix: nil)
        case .needsTerminal(let flavor, let error):
            let display = PromptSelector.hasDisplay(environment)
            return Check(
                name: "PIN prompt", status: .warn,
                detail: "\(prompt.program) is a terminal pinentry (\(flavor)): started with no terminal, as under a "
                    + "browser started from the desktop, it fails (\(error)), so every PIN entry would",
                fix: display
                    ? graphical + " when a display is available"
                    : graphical + "; run doctor again in your desktop session (no DISPLAY or WAYLAND_DISPLAY here)")
        case .broken(let why):
            return Check(
                name: "PIN prompt", status: .warn, detail: "\(prompt.program) does not work: \(why)",
                fix: "reinstall it, or set WEBAUTHN_BRIDGE_PINENTRY to a working pinentry")
        }
    }
}
