import BridgeHost

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the running binary was installed, so that doctor's advice fits it: a package's manifests are in place for
/// every user and are fixed by reinstalling the package, install.sh's by running it again (with `--system` for a
/// system install), and a binary that was never installed needs install.sh first.
public enum Installation: Equatable, Sendable {
    /// The Debian package: /usr/libexec/webauthn-bridge/webauthn-bridge beside the package's copyright file (every
    /// Debian package ships /usr/share/doc/NAME/copyright; install.sh writes none). Not dpkg's database: a program
    /// must not read it directly (lintian's uses-dpkg-database-directly), and the file answers the same question.
    case package
    /// `install.sh`: an `installed-files` record beside the binary; `system` when it says `mode system`
    /// (install.sh --system).
    case installScript(prefix: String, system: Bool)
    /// A build tree or a copy: nothing registered it.
    case notInstalled

    public static let packagedHost = "/usr/libexec/webauthn-bridge/webauthn-bridge"
    static let packageCopyright = "/usr/share/doc/webauthn-bridge/copyright"

    /// `systemRoot` prefixes the package's files (tests).
    public static func of(executable: String, systemRoot: String = "") -> Installation {
        let directory = parentDirectory(of: executable)
        if executable == packagedHost,
            FileManager.default.fileExists(atPath: systemRoot + packageCopyright)
        {
            return .package
        }
        guard let record = FileManager.default.contents(atPath: directory + "/installed-files") else {
            return .notInstalled
        }
        let system = String(decoding: record, as: UTF8.self).split(separator: "\n").contains("mode system")
        return .installScript(prefix: parentDirectory(of: parentDirectory(of: directory)), system: system)
    }

    /// What registers the host again with the browser named (install.sh's id for `--browser`, nil: every browser).
    public func registerAgain(browser: String? = nil) -> String {
        let only = browser.map { " --browser \($0)" } ?? ""
        switch self {
        case .package: return "sudo apt install --reinstall webauthn-bridge"
        case .installScript(let prefix, let system):
            let options =
                system
                ? "sudo ./install.sh --system" + (prefix == "/usr/local" ? "" : " --prefix \(prefix)")
                : "./install.sh" + (prefix.hasSuffix("/.local") ? "" : " --prefix \(prefix)")
            return "run \(options)\(only) in the webauthn-bridge clone"
        case .notInstalled: return "run ./install.sh\(only) in the webauthn-bridge clone"
        }
    }

    /// Installed for every user: the system manifests are the ones that count.
    public var isSystemWide: Bool {
        switch self {
        case .package: true
        case .installScript(_, let system): system
        case .notInstalled: false
        }
    }
}
