import Glibc
import WebAuthn

public enum BrowserKind: String, Sendable, CaseIterable {
    case chromium, firefox
}

/// A throwaway browser profile inside the demo's temporary directory, set up so that the browser loads the
/// extension and starts this binary, with the SoftToken, as its native-messaging host:
/// - Chromium: `--user-data-dir`, the host manifest in `<user-data-dir>/NativeMessagingHosts/`, the extension by
///   `--load-extension` (Chromium, unlike branded Chrome, still honours it).
/// - Firefox: a scratch HOME whose `~/.mozilla/native-messaging-hosts/` holds the host manifest, and a profile
///   whose `extensions/` directory holds a proxy file named by the add-on's id containing the extension's path;
///   user.js turns off signature checks (honoured by ESR, Developer Edition and Nightly, not release) and the
///   sideload prompt (`extensions.autoDisableScopes` 0), so the unsigned add-on is enabled at start (without
///   either it never loads: docs/measurements.md, "A killed demo's browser").
/// The browser's environment carries WEBAUTHN_BRIDGE_SOFT_TOKEN (and a log file and TMPDIR in the demo's
/// directory), and the host inherits it.
public struct BrowserProfile: Sendable {
    public let kind: BrowserKind
    /// Arguments after the browser's path, the page's URL last.
    public let arguments: [String]
    /// Set in the browser's environment, on top of the demo's own.
    public let environment: [(String, String)]
    /// Chromium's user-data-dir or Firefox's profile directory.
    public let directory: String

    static let hostName = "webauthn_bridge"

    public static func prepare(
        _ kind: BrowserKind, root: String, host: String, extension ext: DemoExtension, softToken: String,
        hostLog: String,
        url: String, headless: Bool
    ) throws(DemoError) -> BrowserProfile {
        // The browser's temporary files (Chromium's singleton socket directory, which it leaves behind when
        // stopped by a signal) go inside the demo's directory too, and with it.
        try makeDirectories("\(root)/tmp")
        var environment = [
            ("WEBAUTHN_BRIDGE_SOFT_TOKEN", softToken), ("WEBAUTHN_BRIDGE_LOG_FILE", hostLog), ("TMPDIR", "\(root)/tmp"),
        ]
        switch kind {
        case .chromium:
            let userDataDir = "\(root)/chromium-profile"
            try writeManifest(
                in: "\(userDataDir)/NativeMessagingHosts", host: host,
                allowed: ("allowed_origins", "chrome-extension://\(ext.chromiumID)/"))
            var arguments = [
                "--user-data-dir=\(userDataDir)", "--no-first-run", "--no-default-browser-check",
                "--load-extension=\(ext.directory)", "--disable-extensions-except=\(ext.directory)",
            ]
            // Chromium refuses to start as root with its sandbox.
            if geteuid() == 0 { arguments.append("--no-sandbox") }
            if headless { arguments += ["--headless=new", "--remote-debugging-port=0"] }
            return BrowserProfile(
                kind: kind, arguments: arguments + [url], environment: environment, directory: userDataDir)
        case .firefox:
            let home = "\(root)/home"
            let profile = "\(root)/firefox-profile"
            try writeManifest(
                in: "\(home)/.mozilla/native-messaging-hosts", host: host, allowed: ("allowed_extensions", ext.geckoID))
            try makeDirectories("\(profile)/extensions")
            try writeFile("\(profile)/extensions/\(ext.geckoID)", ext.directory + "\n")
            try writeFile(
                "\(profile)/user.js", firefoxPreferences.map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined())
            environment.append(("HOME", home))
            var arguments = ["--no-remote", "--profile", profile]
            if headless { arguments += ["--headless", "--remote-debugging-port", "0"] }
            return BrowserProfile(
                kind: kind, arguments: arguments + [url], environment: environment, directory: profile)
        }
    }

    static let firefoxPreferences: [(String, String)] = [
        ("xpinstall.signatures.required", "false"),
        ("extensions.autoDisableScopes", "0"),
        ("browser.shell.checkDefaultBrowser", "false"),
        ("browser.aboutwelcome.enabled", "false"),
        ("datareporting.policy.dataSubmissionEnabled", "false"),
        ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
        ("app.update.enabled", "false"),
        ("extensions.update.enabled", "false"),
    ]

    /// The host manifest (as manifests/*.json.in are for an installed host), naming the running binary.
    static func writeManifest(in directory: String, host: String, allowed: (String, String)) throws(DemoError) {
        try makeDirectories(directory)
        let manifest: JSONValue = [
            "name": .string(hostName),
            "description": "webauthn-bridge demo host (SoftToken)",
            "path": .string(host),
            "type": "stdio",
            allowed.0: [.string(allowed.1)],
        ]
        try writeFile("\(directory)/\(hostName).json", manifest.serializedString + "\n")
    }

    /// The command a user can paste to start this browser as the demo would: environment, binary, arguments.
    public func command(browser: String) -> String {
        (["env"] + environment.map { "\($0.0)=\($0.1)" } + [browser] + arguments).map(shellQuoted).joined(
            separator: " ")
    }
}

/// A word as a POSIX shell reads it back unchanged.
func shellQuoted(_ word: String) -> String {
    let plain = word.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic && $0.isASCII || "0123456789-_./=:,+@%".unicodeScalars.contains($0)
    }
    return plain && !word.isEmpty ? word : "'" + word.replacingAll("'", with: "'\\''") + "'"
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
