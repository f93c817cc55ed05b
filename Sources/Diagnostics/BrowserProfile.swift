import BridgeHost

/// A browser as doctor checks it: where its profile is and where it reads host manifests (manifests/browsers.tsv,
/// through BrowserTable). Browsers that share every directory (Firefox and Firefox ESR) are one profile.
public struct BrowserProfile: Sendable {
    public enum Family: String, Sendable { case firefox, chromium }
    public let name: String
    public let family: Family
    /// The profile directory whose existence means "this browser is used here".
    public let profileDirectory: String
    public let manifestDirectory: String
    /// Where `install.sh --system` and the package put the manifest for every user; the browser reads it when the
    /// user's own directory has none.
    public let systemManifestDirectory: String
    /// install.sh's names for it (`--browser NAME`).
    public let ids: [String]
    /// The programs whose presence on PATH means the browser is installed.
    public let commands: [String]

    /// `systemRoot` prefixes the system directories (tests point it at a scratch directory).
    public static func all(home: String, configHome: String, systemRoot: String = "") -> [BrowserProfile] {
        var profiles: [BrowserProfile] = []
        for row in BrowserTable.rows {
            guard let family = Family(rawValue: row.kind) else { continue }
            let profile = BrowserProfile(
                name: row.name, family: family,
                profileDirectory: BrowserTable.expand(row.profile, home: home, configHome: configHome),
                manifestDirectory: BrowserTable.expand(row.manifests, home: home, configHome: configHome),
                systemManifestDirectory: systemRoot + row.systemManifests, ids: [row.id], commands: [row.command])
            if let same = profiles.firstIndex(where: { $0.sharesDirectories(with: profile) }) {
                let first = profiles[same]
                profiles[same] = BrowserProfile(
                    name: first.name + " / " + profile.name, family: family, profileDirectory: first.profileDirectory,
                    manifestDirectory: first.manifestDirectory, systemManifestDirectory: first.systemManifestDirectory,
                    ids: first.ids + profile.ids, commands: first.commands + profile.commands)
            } else {
                profiles.append(profile)
            }
        }
        return profiles
    }

    func sharesDirectories(with other: BrowserProfile) -> Bool {
        profileDirectory == other.profileDirectory && manifestDirectory == other.manifestDirectory
            && systemManifestDirectory == other.systemManifestDirectory
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
