import Testing

@testable import Prompts

/// WEBAUTHN_BRIDGE_PINENTRY > configured program > a graphical pinentry when a display is available > `pinentry` on
/// PATH > /dev/tty > nothing.
struct PromptSelectorTests {
    let withPinentry = TemporaryDirectory()
    let empty = TemporaryDirectory()
    let pinentryOnPath: String

    init() {
        pinentryOnPath = withPinentry.write("pinentry", "#!/bin/sh\nexit 0\n", executable: true)
    }

    private func select(
        env: [String: String] = [:], configured: String? = nil, path: String? = nil,
        tty: String = "/nonexistent/tty"
    ) -> (any PINPrompt)? {
        var environment = env
        environment["PATH"] = path ?? empty.path
        return PromptSelector.select(environment: environment, configuredProgram: configured, ttyPath: tty)
    }

    @Test func environmentVariableWinsOverEverything() throws {
        let terminal = try PseudoTerminal()
        let chosen = select(
            env: ["WEBAUTHN_BRIDGE_PINENTRY": "/opt/env-pinentry"], configured: "/opt/configured",
            path: withPinentry.path, tty: terminal.slavePath)
        #expect((chosen as? PinentryPrompt)?.program == "/opt/env-pinentry")
    }

    @Test func configuredProgramWinsOverPATH() {
        let chosen = select(configured: "/opt/configured", path: withPinentry.path)
        #expect((chosen as? PinentryPrompt)?.program == "/opt/configured")
    }

    @Test func emptySettingsAreIgnored() {
        let chosen = select(env: ["WEBAUTHN_BRIDGE_PINENTRY": ""], configured: "", path: withPinentry.path)
        #expect((chosen as? PinentryPrompt)?.program == pinentryOnPath)
    }

    @Test func pinentryOnPATHWinsOverTheTerminal() throws {
        let terminal = try PseudoTerminal()
        let chosen = select(path: withPinentry.path, tty: terminal.slavePath)
        #expect((chosen as? PinentryPrompt)?.program == pinentryOnPath)
    }

    @Test func terminalWhenNoPinentryExists() throws {
        let terminal = try PseudoTerminal()
        let chosen = select(tty: terminal.slavePath)
        #expect((chosen as? TerminalPrompt)?.ttyPath == terminal.slavePath)
    }

    @Test func nothingWhenNoPinentryAndNoTerminal() {
        #expect(select() == nil)
    }

    @Test func chosenPinentryGetsTheGivenEnvironment() {
        let chosen = select(env: ["WEBAUTHN_BRIDGE_PINENTRY": "/opt/x", "DISPLAY": ":1"])
        #expect((chosen as? PinentryPrompt)?.environment["DISPLAY"] == ":1")
    }

    @Test(arguments: [["DISPLAY": ":0"], ["WAYLAND_DISPLAY": "wayland-0"]])
    func aGraphicalPinentryWinsOverPinentryWhenADisplayIsAvailable(display: [String: String]) {
        let gtk = withPinentry.write("pinentry-gtk-2", "#!/bin/sh\nexit 0\n", executable: true)
        #expect((select(env: display, path: withPinentry.path) as? PinentryPrompt)?.program == gtk)
        let gnome = withPinentry.write("pinentry-gnome3", "#!/bin/sh\nexit 0\n", executable: true)
        #expect((select(env: display, path: withPinentry.path) as? PinentryPrompt)?.program == gnome)
    }

    @Test func withoutADisplayPinentryIsUsedEvenWhenAGraphicalOneIsInstalled() {
        _ = withPinentry.write("pinentry-gnome3", "#!/bin/sh\nexit 0\n", executable: true)
        #expect((select(env: ["DISPLAY": ""], path: withPinentry.path) as? PinentryPrompt)?.program == pinentryOnPath)
    }

    @Test func aConfiguredProgramWinsOverAGraphicalOne() {
        _ = withPinentry.write("pinentry-gnome3", "#!/bin/sh\nexit 0\n", executable: true)
        let chosen = select(env: ["DISPLAY": ":0"], configured: "/opt/configured", path: withPinentry.path)
        #expect((chosen as? PinentryPrompt)?.program == "/opt/configured")
    }

    @Test func withoutATerminalThereIsNoTerminalPrompt() throws {
        let chosen = PromptSelector.selectWithoutTerminal(
            environment: ["PATH": empty.path], configuredProgram: nil)
        #expect(chosen == nil)
    }
}
