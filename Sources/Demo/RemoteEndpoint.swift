import Glibc
import Processes

/// With --headless the browser also listens for remote control on loopback (Chromium: DevTools protocol,
/// Firefox: WebDriver BiDi), so that a test can drive the demo page; this finds the address it chose.
enum RemoteEndpoint {
    /// Waits up to 60 s for the address; nil when a termination signal came first; throws when the browser exited
    /// or announced nothing.
    static func wait(for kind: BrowserKind, profile: BrowserProfile, browser: BrowserProcess) throws(DemoError)
        -> String?
    {
        var found: String?
        let announced = poll(seconds: 60, every: 20) {
            // A Ctrl-C meanwhile ends the wait: the caller's signal loop then finds it pending.
            if browser.reap() != nil || DemoSession.terminationPending() { return true }
            found = kind == .chromium ? chromium(userDataDir: profile.directory) : firefox(log: browser.logPath)
            return found != nil
        }
        if found == nil, !DemoSession.terminationPending(), browser.reap() != nil || !announced {
            throw DemoError("the browser announced no remote-control address; its output:\n\(browser.outputTail())")
        }
        return found
    }

    /// Chromium writes "PORT\nPATH" to <user-data-dir>/DevToolsActivePort.
    static func chromium(userDataDir: String) -> String? {
        guard let text = readFile("\(userDataDir)/DevToolsActivePort", limit: 4096) else { return nil }
        let lines = text.split(separator: "\n")
        guard lines.count >= 2, let port = Int(lines[0]) else { return nil }
        return "ws://127.0.0.1:\(port)\(lines[1])"
    }

    /// Firefox prints "WebDriver BiDi listening on ws://127.0.0.1:PORT".
    static func firefox(log: String) -> String? {
        guard let text = readFile(log, limit: 4 << 20), let range = text.firstRange(of: "WebDriver BiDi listening on ")
        else { return nil }
        let address = text[range.upperBound...].prefix { !$0.isWhitespace }
        return address.hasPrefix("ws://") ? String(address) : nil
    }
}
