import Foundation
import Testing

@testable import Diagnostics

/// The host's browser table is manifests/browsers.tsv, the one install.sh reads: generated from it
/// (scripts/generate-browser-table.py), and this fails when the two differ.
struct BrowserTableTests {
    static let tablePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../manifests/browsers.tsv").standardized.path

    @Test func theCompiledRowsAreTheTableInstallShReads() throws {
        let text = try String(contentsOfFile: Self.tablePath, encoding: .utf8)
        let rows = try #require(BrowserTable.parse(text), "a line of \(Self.tablePath) has the wrong width")
        #expect(
            rows == BrowserTable.rows,
            "Sources/Diagnostics/BrowserTableRows.swift differs from \(Self.tablePath): run scripts/generate-browser-table.py"
        )
    }

    @Test func libreWolfReadsItsOwnSystemDirectory() throws {
        // LibreWolf's patch of nsXREDirProvider moves Firefox's /usr/lib/mozilla to /usr/lib/librewolf.
        let libreWolf = try #require(BrowserTable.rows.first { $0.id == "librewolf" })
        #expect(libreWolf.systemManifests == "/usr/lib/librewolf/native-messaging-hosts")
    }

    @Test func browsersThatShareEveryDirectoryAreOneProfile() {
        let profiles = BrowserProfile.all(home: "/h", configHome: "/c", systemRoot: "/r")
        let firefox = profiles.first { $0.ids.contains("firefox") }
        #expect(firefox?.name == "Firefox / Firefox ESR" && firefox?.ids == ["firefox", "firefox-esr"])
        #expect(firefox?.manifestPath == "/h/.mozilla/native-messaging-hosts/webauthn_bridge.json")
        #expect(firefox?.systemManifestPath == "/r/usr/lib/mozilla/native-messaging-hosts/webauthn_bridge.json")
        let brave = profiles.first { $0.ids == ["brave"] }
        #expect(brave?.manifestDirectory == "/c/BraveSoftware/Brave-Browser/NativeMessagingHosts")
        #expect(brave?.systemManifestDirectory == "/r/etc/opt/chrome/native-messaging-hosts")
        #expect(profiles.count == BrowserTable.rows.count - 1)
    }

    @Test(arguments: [
        ("~", "/h"), ("~/.mozilla", "/h/.mozilla"), ("$XDG_CONFIG_HOME/chromium", "/c/chromium"),
        ("/etc/chromium", "/etc/chromium"), ("~user", "~user"),
    ])
    func tablePathsExpandAsInstallShExpandsThem(path: String, expanded: String) {
        #expect(BrowserTable.expand(path, home: "/h", configHome: "/c") == expanded)
    }
}
