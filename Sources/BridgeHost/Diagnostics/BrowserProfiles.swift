/// The browsers install.sh registers with, and where each one looks for host manifests (keep in step with
/// install.sh's `browser_info`).
public struct BrowserProfile: Sendable {
    public enum Family: String, Sendable { case firefox, chromium }
    public let name: String
    public let family: Family
    /// The profile directory whose existence means "this browser is used here".
    public let profileDirectory: String
    public let manifestDirectory: String

    public static func all(home: String, configHome: String) -> [BrowserProfile] {
        [
            BrowserProfile(name: "Firefox / Firefox ESR", family: .firefox, profileDirectory: "\(home)/.mozilla",
                           manifestDirectory: "\(home)/.mozilla/native-messaging-hosts"),
            BrowserProfile(name: "LibreWolf", family: .firefox, profileDirectory: "\(home)/.librewolf",
                           manifestDirectory: "\(home)/.librewolf/native-messaging-hosts"),
            BrowserProfile(name: "Chromium", family: .chromium, profileDirectory: "\(configHome)/chromium",
                           manifestDirectory: "\(configHome)/chromium/NativeMessagingHosts"),
            BrowserProfile(name: "Google Chrome", family: .chromium, profileDirectory: "\(configHome)/google-chrome",
                           manifestDirectory: "\(configHome)/google-chrome/NativeMessagingHosts"),
            BrowserProfile(name: "Brave", family: .chromium, profileDirectory: "\(configHome)/BraveSoftware/Brave-Browser",
                           manifestDirectory: "\(configHome)/BraveSoftware/Brave-Browser/NativeMessagingHosts"),
            BrowserProfile(name: "Vivaldi", family: .chromium, profileDirectory: "\(configHome)/vivaldi",
                           manifestDirectory: "\(configHome)/vivaldi/NativeMessagingHosts"),
            BrowserProfile(name: "Microsoft Edge", family: .chromium, profileDirectory: "\(configHome)/microsoft-edge",
                           manifestDirectory: "\(configHome)/microsoft-edge/NativeMessagingHosts"),
        ]
    }

    public var manifestPath: String { manifestDirectory + "/webauthn_bridge.json" }

    /// argv as this browser launches the host.
    func launchArguments(hostPath: String) -> [String] {
        switch family {
        case .chromium: [hostPath, "chrome-extension://\(ExtensionAllowList.chromiumID)/"]
        case .firefox: [hostPath, manifestPath, ExtensionAllowList.firefoxID]
        }
    }
}
