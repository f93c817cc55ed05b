import BridgeHost
import FIDO
import Glibc
import Processes
import Prompts
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge doctor`: checks what a working install needs and says exactly how to fix what is not.
/// `fail` is for what stops every sign-in; `warn` for what stops some (no key plugged in, no pinentry).
public struct Doctor {
    public enum Status: String, Sendable {
        case ok = "OK"
        case warn = "WARN"
        case fail = "FAIL"
    }

    public struct Check: Sendable {
        public let name: String
        public let status: Status
        public let detail: String
        public let fix: String?
    }

    let environment: [String: String]
    let home: String
    let configHome: String
    let systemRoot: String
    /// How this binary was installed: what the fixes tell the user to run.
    let installation: Installation

    /// `installation`: nil works it out from the running binary.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, systemRoot: String = "",
        installation: Installation? = nil
    ) {
        self.environment = environment
        home = homeDirectory(environment)
        configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        self.systemRoot = systemRoot
        self.installation =
            installation
            ?? runningExecutablePath().map { Installation.of(executable: $0) }
            ?? .notInstalled
    }

    public func run() -> [Check] {
        // Doctor writes to children that may die early (the probed host, a pinentry that is no pinentry): with
        // SIGPIPE ignored such a write fails with EPIPE and the check says what happened, instead of killing doctor.
        signal(SIGPIPE, SIG_IGN)
        var checks = [libfido2()]
        checks += manifests()
        checks.append(keys())
        checks.append(pinentry())
        checks.append(publicSuffixList())
        checks.append(logDirectory())
        checks += sandboxedBrowsers()
        return checks
    }

    public static func passed(_ checks: [Check]) -> Bool { !checks.contains { $0.status == .fail } }

    func libfido2() -> Check {
        Check(name: "libfido2", status: .ok, detail: "version \(FIDOLibrary.version)", fix: nil)
    }

    /// A system-wide install (the package, install.sh --system) is checked for every browser this user has used or
    /// this machine has (its program on PATH), through the system manifests; a per-user one for the browsers
    /// this user has used.
    func manifests() -> [Check] {
        let profiles = BrowserProfile.all(home: home, configHome: configHome, systemRoot: systemRoot)
        let used = profiles.filter { FileManager.default.fileExists(atPath: $0.profileDirectory) }
        if installation.isSystemWide {
            let installed = profiles.filter { profile in
                used.contains { $0.name == profile.name }
                    || profile.commands.contains { ChildProcess.resolveExecutable($0, environment: environment) != nil }
            }
            guard !installed.isEmpty else {
                return [
                    Check(
                        name: "browsers", status: .warn,
                        detail: "no supported browser found: no profile under \(home) and no browser program on PATH",
                        fix: "install one: sudo apt install firefox-esr (or chromium)")
                ]
            }
            return installed.map(manifest)
        }
        guard !used.isEmpty else {
            return [
                Check(
                    name: "browsers", status: .fail,
                    detail: "no Firefox or Chromium-family profile found under \(home)",
                    fix: "start your browser once (it makes its profile), then \(installation.registerAgain())")
            ]
        }
        return used.map(manifest)
    }

    func manifest(_ profile: BrowserProfile) -> Check {
        let name = "host manifest for \(profile.name)"
        let fix = installation.registerAgain(browser: installation == .package ? nil : profile.ids.first)
        // The browser reads the user's own manifest first, and the system-wide one (install.sh --system) without it.
        guard
            let manifestPath = [profile.manifestPath, profile.systemManifestPath].first(
                where: FileManager.default.fileExists),
            let data = FileManager.default.contents(atPath: manifestPath)
        else {
            return Check(
                name: name, status: .fail,
                detail: "\(profile.manifestPath) is missing (and so is \(profile.systemManifestPath))", fix: fix)
        }
        guard let json = try? JSONValue.parse(Array(data)), case .string(let path)? = json["path"] else {
            return Check(name: name, status: .fail, detail: "\(manifestPath) is not a valid host manifest", fix: fix)
        }
        let allowedKey = profile.family == .firefox ? "allowed_extensions" : "allowed_origins"
        let expected =
            profile.family == .firefox
            ? ExtensionAllowList.firefoxID : "chrome-extension://\(ExtensionAllowList.chromiumID)/"
        guard json[allowedKey]?.arrayValue?.contains(.string(expected)) == true else {
            return Check(
                name: name, status: .fail, detail: "\(manifestPath): \(allowedKey) does not list \(expected)", fix: fix)
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return Check(
                name: name, status: .fail, detail: "\(manifestPath) points at \(path), which is not an executable",
                fix: fix)
        }
        switch HostProbe.info(arguments: profile.launchArguments(hostPath: path, manifest: manifestPath)) {
        case .success(let version):
            return Check(
                name: name, status: .ok,
                detail: "\(manifestPath) → \(path) (answers as \(profile.family.rawValue), version \(version))",
                fix: nil)
        case .failure(let problem):
            return Check(
                name: name, status: .fail, detail: "\(path) does not answer as the browser would start it: \(problem)",
                fix: fix)
        }
    }

    func keys() -> Check {
        if let soft = environment["WEBAUTHN_BRIDGE_SOFT_TOKEN"], !soft.isEmpty {
            return Check(
                name: "security keys", status: .warn,
                detail:
                    "WEBAUTHN_BRIDGE_SOFT_TOKEN is set: the host uses SoftToken \(soft), a software token for development and tests, not your keys",
                fix: "unset WEBAUTHN_BRIDGE_SOFT_TOKEN to use USB keys")
        }
        let found = USBDeviceProvider().manifest()
        let inaccessible = USBDeviceProvider.inaccessible(besides: found)
        if !inaccessible.isEmpty {
            let usable = found.isEmpty ? "no key usable" : "usable: \(Self.names(found))"
            return Check(
                name: "security keys", status: .warn,
                detail: "\(usable); \(Self.names(inaccessible)) cannot be opened by this user",
                fix:
                    "FIDO keys need a udev rule giving your session access (uaccess): install libfido2's rules (Debian: libfido2-1 ships 70-u2f.rules; or `sudo apt install libu2f-udev`), then replug the key; on older systems add yourself to the plugdev group"
            )
        }
        if !found.isEmpty {
            return Check(name: "security keys", status: .ok, detail: Self.names(found), fix: nil)
        }
        return Check(
            name: "security keys", status: .warn, detail: "no FIDO key plugged in", fix: "plug in your security key")
    }

    private static func names(_ keys: [DeviceLocation]) -> String {
        keys.map { [$0.path, $0.manufacturer, $0.product].filter { !$0.isEmpty }.joined(separator: " ") }
            .joined(separator: "; ")
    }

    func publicSuffixList() -> Check {
        PublicSuffixList.system().isAvailable
            ? Check(name: "public suffix list", status: .ok, detail: "found (rp.id checks work)", fix: nil)
            : Check(
                name: "public suffix list", status: .fail, detail: "not found: every rp.id would be refused",
                fix: "sudo apt install publicsuffix libpsl5")
    }

    func logDirectory() -> Check {
        let path: String
        do { path = try HostConfiguration.load(environment: environment).logFile } catch {
            return Check(
                name: "configuration", status: .fail, detail: "\(error)", fix: "correct the setting named above")
        }
        let directory = parentDirectory(of: path)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return access(directory, W_OK) == 0
            ? Check(name: "log", status: .ok, detail: path, fix: nil)
            : Check(
                name: "log", status: .fail, detail: "\(directory) is not writable",
                fix: "fix its permissions, or set WEBAUTHN_BRIDGE_LOG_FILE to a writable path")
    }

    func sandboxedBrowsers() -> [Check] {
        let (flatpakIDs, snapNames) = BrowserTable.sandboxedPackages
        let flatpaks = flatpakIDs.filter { FileManager.default.fileExists(atPath: "\(home)/.var/app/\($0)") }
        let snaps = snapNames.filter { FileManager.default.fileExists(atPath: "\(home)/snap/\($0)") }
        return (flatpaks.map { "Flatpak \($0)" } + snaps.map { "Snap \($0)" }).map {
            Check(
                name: "sandboxed browser", status: .warn,
                detail: "\($0) found: it cannot start a host installed outside its sandbox",
                fix: "use the distribution's (deb) browser package; Flatpak/Snap support is not there yet")
        }
    }
}
