import ArgumentParser
import BridgeHost
import Demo
import Glibc

/// `webauthn-bridge demo`: see the bridge work without a security key and without touching your browser profile.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Try the bridge without a key: a SoftToken, a demo relying party on localhost, a throwaway browser profile.",
        discussion: """
            Creates a SoftToken (a software authenticator) in a temporary directory and serves a small relying party \
            on http://localhost:PORT/ (127.0.0.1 only) that registers, signs in and shows what it verified. With \
            --browser it starts that browser on a throwaway profile with the extension and the SoftToken, opened on \
            the demo page; without, it prints the command to do so. Ctrl-C stops everything and removes the \
            temporary directory. A browser the demo started ends with it even when the demo is killed, and a \
            demo removes the temporary directories that killed demos left behind.
            """)

    @Option(
        help: ArgumentHelp(
            "Start this browser: chromium or firefox (Firefox ESR, Developer Edition or Nightly).",
            valueName: "chromium|firefox"))
    var browser: String?

    @Option(
        name: .customLong("browser-binary"),
        help: ArgumentHelp("The browser's executable (default: chromium / firefox-esr on PATH).", valueName: "path"))
    var browserBinary: String?

    @Option(
        name: .customLong("extension"),
        help: ArgumentHelp(
            "The unpacked extension's directory (default: the installed copy, or the source tree's extension/).",
            valueName: "dir"))
    var extensionDirectory: String?

    @Flag(
        help:
            "Start the browser without a window and print its remote-control address (DevTools or WebDriver BiDi), for tests."
    )
    var headless = false

    func validate() throws {
        if let browser, BrowserKind(rawValue: browser) == nil {
            throw ValidationError("--browser must be chromium or firefox, not '\(browser)'")
        }
        if headless, browser == nil { throw ValidationError("--headless needs --browser") }
        if browserBinary != nil, browser == nil { throw ValidationError("--browser-binary needs --browser") }
    }

    func run() throws {
        var options = DemoOptions()
        options.browser = browser.flatMap(BrowserKind.init(rawValue:))
        options.browserBinary = browserBinary
        options.extensionDirectory = extensionDirectory
        options.headless = headless
        do {
            try DemoSession.run(options, executable: Self.executablePath())
        } catch {
            writeToStandardError("webauthn-bridge demo: \(error)\n")
            throw ExitCode(1)
        }
    }

    /// This binary, which the browser is to start as its native-messaging host.
    static func executablePath() -> String { runningExecutablePath() ?? CommandLine.arguments[0] }
}
