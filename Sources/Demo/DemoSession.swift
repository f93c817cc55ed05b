import Glibc
import SoftToken

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `webauthn-bridge demo` was asked to do.
public struct DemoOptions: Sendable {
    public var browser: BrowserKind?
    public var browserBinary: String?
    public var extensionDirectory: String?
    public var headless = false
    public init() {}
}

/// `webauthn-bridge demo`: a SoftToken in a temporary directory, the demo relying party on loopback, and
/// optionally a browser on a throwaway profile with the extension, opened on the demo page. It runs until
/// SIGINT (Ctrl-C), SIGTERM or SIGHUP, or until the browser it started exits; then it stops the browser's
/// process group and every process it inherited (`ChildReaper`), and removes the temporary directory. What it
/// cannot do when killed is done by others: the kernel ends its browser (`BrowserProcess`), and the next demo
/// removes its directory (`DemoDirectory`).
public enum DemoSession {
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGCHLD]

    public static func run(_ options: DemoOptions, executable: String) throws(DemoError) {
        let ext = try DemoExtension.locate(explicit: options.extensionDirectory, executable: executable)
        let browserPath = try options.browser.map { kind throws(DemoError) in
            try BrowserLocator.find(kind, explicit: options.browserBinary)
        }

        // Blocked before any thread starts, so every thread inherits the mask and only `waitForSignal` sees them.
        var waited = sigset_t()
        sigemptyset(&waited)
        for signal in signals { sigaddset(&waited, signal) }
        pthread_sigmask(SIG_BLOCK, &waited, nil)
        ChildReaper.becomeSubreaper()

        let base = DemoDirectory.base()
        DemoDirectory.removeStale(in: base, say: say)
        let root = try DemoDirectory.create(in: base)
        var server: HTTPServer?
        var browser: BrowserProcess?
        defer {
            server?.stop()
            browser?.stop()
            ChildReaper.stopAll()
            try? FileManager.default.removeItem(atPath: root)
            say("Stopped: \(browser == nil ? "" : "the browser and its host are gone, ")\(root) removed.")
        }

        let token = "\(root)/softtoken.state"
        let hostLog = "\(root)/host.log"
        do {
            _ = try SoftToken.create(at: token, configuration: SoftTokenConfiguration(), pin: nil)
        } catch {
            throw DemoError("cannot create the SoftToken in \(root): \(error)")
        }
        let listening = try HTTPServer(log: { say("demo server: \($0)") })
        server = listening
        let relyingParty = DemoRelyingParty(port: listening.port)
        let routes = DemoRoutes(relyingParty: relyingParty, port: listening.port, log: { say("demo server: \($0)") })
        listening.start { routes.respond(to: $0) }
        let url = relyingParty.origin + "/"

        say(
            """
            webauthn-bridge demo: try the bridge without a security key.
              SoftToken:  \(token)  (a software authenticator for this demo only; its keys are not protected)
              extension:  \(ext.directory)
              demo page:  \(url)
            """)
        func profile(_ kind: BrowserKind) throws(DemoError) -> BrowserProfile {
            try BrowserProfile.prepare(
                kind, root: root, host: executable, extension: ext, softToken: token, hostLog: hostLog,
                url: url, headless: options.headless)
        }
        if let kind = options.browser, let browserPath {
            let prepared = try profile(kind)
            let started = try BrowserProcess(
                executable: browserPath, arguments: prepared.arguments, environment: prepared.environment,
                logPath: "\(root)/\(kind.rawValue).log")
            browser = started
            say(
                "Started \(kind.rawValue) (pid \(started.pid), \(browserPath)) on a throwaway profile: \(prepared.directory)"
            )
            if kind == .firefox, !browserPath.contains("esr") { say(BrowserLocator.firefoxReleaseNote) }
            if options.headless, let endpoint = try RemoteEndpoint.wait(for: kind, profile: prepared, browser: started)
            {
                say("Remote control: \(endpoint)")
            }
        } else {
            say(
                "Start a browser on a throwaway profile with the extension and this SoftToken, opened on the demo page:"
            )
            for kind in BrowserKind.allCases {
                say("  \(kind.rawValue):\n    \(try profile(kind).command(browser: BrowserLocator.suggestion(kind)))")
            }
        }
        say("Press Ctrl-C to stop; the browser and \(root) go with it.")
        let reason = waitUntilDone(browser: browser)
        say(reason)
    }

    /// Waits for a termination signal or for the browser to exit; reaps orphaned hosts meanwhile.
    static func waitUntilDone(browser: BrowserProcess?) -> String {
        while true {
            guard let signal = waitForSignal(seconds: nil) else { continue }
            if signal != SIGCHLD { return "Received \(signalName(signal)); stopping." }
            if let browser, let status = browser.reap() {
                let tail = browser.outputTail()
                return "The browser exited (\(describe(status))); stopping."
                    + (tail.isEmpty ? "" : " Its last output:\n\(tail)")
            }
            _ = ChildReaper.reapExited()
        }
    }

    /// The next blocked signal of `signals`, or nil after `seconds` (nil: wait as long as it takes).
    static func waitForSignal(seconds: Double?) -> Int32? {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        var timeout = timespec(
            tv_sec: Int(seconds ?? 3600), tv_nsec: Int(((seconds ?? 0) - (seconds ?? 0).rounded(.down)) * 1e9))
        let signal = sigtimedwait(&set, nil, &timeout)
        return signal > 0 ? signal : nil
    }

    /// True when SIGINT, SIGTERM or SIGHUP arrived and waits for `waitForSignal`.
    static func terminationPending() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return [SIGINT, SIGTERM, SIGHUP].contains { sigismember(&pending, $0) == 1 }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    static func describe(_ status: Int32) -> String {
        status & 0x7F == 0 ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(status & 0x7F)"
    }
}

/// One line (or a few) to stdout at once: tests and scripts read it through a pipe.
func say(_ text: String) {
    print(text)
    fflush(nil)
}
