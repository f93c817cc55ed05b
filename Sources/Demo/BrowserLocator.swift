import Glibc

/// Which browser binary the demo starts.
enum BrowserLocator {
    /// Names looked up on PATH, in order. Branded Google Chrome is not among them: since version 137 it ignores
    /// --load-extension.
    static func names(_ kind: BrowserKind) -> [String] {
        switch kind {
        case .chromium: ["chromium", "chromium-browser"]
        case .firefox: ["firefox-esr", "firefox"]
        }
    }

    static func find(_ kind: BrowserKind, explicit: String?) throws(DemoError) -> String {
        if let explicit {
            guard access(explicit, X_OK) == 0 else {
                throw DemoError("--browser-binary \(explicit) is not an executable file")
            }
            return absolute(explicit)
        }
        for name in names(kind) {
            if let path = onPath(name) { return path }
        }
        throw DemoError(
            "no \(kind.rawValue) found on PATH (looked for \(names(kind).joined(separator: ", "))); give its path with --browser-binary"
        )
    }

    /// The name to show in a printed command: the first one on PATH, or the usual one.
    static func suggestion(_ kind: BrowserKind) -> String {
        names(kind).first { onPath($0) != nil } ?? names(kind)[0]
    }

    static func onPath(_ name: String) -> String? {
        let path = String(cString: getenv("PATH") ?? strdup("/usr/local/bin:/usr/bin:/bin"))
        for directory in path.split(separator: ":")
        where isFile("\(directory)/\(name)") && access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        return nil
    }

    static let firefoxReleaseNote = """
        Note: Firefox release builds refuse unsigned extensions whatever the profile says; if the demo page says \
        the extension is not active, use Firefox ESR, Developer Edition or Nightly (--browser-binary PATH).
        """
}
