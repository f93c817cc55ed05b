import BridgeHost

/// The browsers install.sh registers with, and where each one looks for host manifests (keep in step with
/// install.sh's `browser_info`).
public struct BrowserProfile: Sendable {
    public enum Family: String, Sendable { case firefox, chromium }
    public let name: String
    public let family: Family
    /// The profile directory whose existence means "this browser is used here".
    public let profileDirectory: String
    public let manifestDirectory: String
    /// Where `install.sh --system` puts the manifest for every user; the browser reads it when the user's own
    /// directory has none.
    public let systemManifestDirectory: String

    /// `systemRoot` prefixes the system directories (tests point it at a scratch directory).
    public static func all(home: String, configHome: String, systemRoot: String = "") -> [BrowserProfile] {
        let mozilla = systemRoot + "/usr/lib/mozilla/native-messaging-hosts"
        let chrome = systemRoot + "/etc/opt/chrome/native-messaging-hosts"
        return [
            BrowserProfile(
                name: "Firefox / Firefox ESR", family: .firefox, profileDirectory: "\(home)/.mozilla",
                manifestDirectory: "\(home)/.mozilla/native-messaging-hosts", systemManifestDirectory: mozilla),
            BrowserProfile(
                name: "LibreWolf", family: .firefox, profileDirectory: "\(home)/.librewolf",
                manifestDirectory: "\(home)/.librewolf/native-messaging-hosts", systemManifestDirectory: mozilla),
            BrowserProfile(
                name: "Chromium", family: .chromium, profileDirectory: "\(configHome)/chromium",
                manifestDirectory: "\(configHome)/chromium/NativeMessagingHosts",
                systemManifestDirectory: systemRoot + "/etc/chromium/native-messaging-hosts"),
            BrowserProfile(
                name: "Google Chrome", family: .chromium, profileDirectory: "\(configHome)/google-chrome",
                manifestDirectory: "\(configHome)/google-chrome/NativeMessagingHosts", systemManifestDirectory: chrome),
            BrowserProfile(
                name: "Brave", family: .chromium, profileDirectory: "\(configHome)/BraveSoftware/Brave-Browser",
                manifestDirectory: "\(configHome)/BraveSoftware/Brave-Browser/NativeMessagingHosts",
                systemManifestDirectory: chrome),
            BrowserProfile(
                name: "Vivaldi", family: .chromium, profileDirectory: "\(configHome)/vivaldi",
                manifestDirectory: "\(configHome)/vivaldi/NativeMessagingHosts", systemManifestDirectory: chrome),
            BrowserProfile(
                name: "Microsoft Edge", family: .chromium, profileDirectory: "\(configHome)/microsoft-edge",
                manifestDirectory: "\(configHome)/microsoft-edge/NativeMessagingHosts",
                systemManifestDirectory: systemRoot + "/etc/opt/edge/native-messaging-hosts"),
        ]
    }

    public var manifestPath: String { manifestDirectory + "/webauthn_bridge.json" }
    public var systemManifestPath: String { systemManifestDirectory + "/webauthn_bridge.json" }

    /// argv as this browser launches the host found through `manifest`.
    func launchArguments(hostPath: String, manifest: String) -> [String] {
        switch family {
        case .chromium: [hostPath, "chrome-extension://\(ExtensionAllowList.chromiumID)/"]
        case .firefox: [hostPath, manifest, ExtensionAllowList.firefoxID]
        }
    }
}
