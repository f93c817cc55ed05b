import Glibc
import Testing
import WebAuthn

@testable import Demo

/// What the demo writes for each browser, and the Chromium id it derives from the extension's key.
@Suite struct BrowserProfileTests {
    static let repository: String = {
        var directory = parent(#filePath)
        while !isFile("\(directory)/Package.swift") { directory = parent(directory) }
        return directory
    }()

    @Test func derivesChromiumsIDFromTheManifestKey() throws {
        let ext = try DemoExtension.locate(explicit: "\(Self.repository)/extension", executable: "/nonexistent/bin/x")
        let expected = readFile("\(Self.repository)/extension/chromium-id.txt")?.filter { $0.isLetter }
        #expect(ext.chromiumID == expected)
        #expect(ext.geckoID == "webauthn-bridge@webauthn-bridge")
    }

    @Test func findsTheSourceTreeExtensionAboveABuiltBinary() {
        let candidates = DemoExtension.candidates(executable: "\(Self.repository)/.build/debug/webauthn-bridge")
        #expect(candidates.last == "\(Self.repository)/extension")
        #expect(candidates.contains("/usr/share/webauthn-bridge/extension"))
    }

    @Test func refusesADirectoryWithoutAManifest() {
        #expect(throws: DemoError.self) {
            try DemoExtension.locate(explicit: "/nonexistent-extension", executable: "/x")
        }
    }

    @Test(arguments: BrowserKind.allCases)
    func writesTheHostManifestAndLoadsTheExtension(kind: BrowserKind) throws {
        var template = Array("/tmp/demo-profile-test-XXXXXX".utf8CString)
        let root = String(cString: mkdtemp(&template)!)
        defer { _ = system("rm -rf '\(root)'") }
        let ext = try DemoExtension.locate(explicit: "\(Self.repository)/extension", executable: "/x")
        let profile = try BrowserProfile.prepare(
            kind, root: root, host: "/opt/wb/webauthn-bridge", extension: ext,
            softToken: "\(root)/t.state", hostLog: "\(root)/h.log", url: "http://localhost:1/", headless: true)
        #expect(profile.arguments.last == "http://localhost:1/")
        #expect(profile.environment.contains { $0 == ("WEBAUTHN_BRIDGE_SOFT_TOKEN", "\(root)/t.state") })
        let manifestPath =
            kind == .chromium
            ? "\(root)/chromium-profile/NativeMessagingHosts/webauthn_bridge.json"
            : "\(root)/home/.mozilla/native-messaging-hosts/webauthn_bridge.json"
        let manifest = try JSONValue.parse(readFile(manifestPath) ?? "")
        #expect(manifest["path"] == "/opt/wb/webauthn-bridge")
        #expect(manifest["name"] == "webauthn_bridge")
        switch kind {
        case .chromium:
            #expect(manifest["allowed_origins"] == .array([.string("chrome-extension://\(ext.chromiumID)/")]))
            #expect(profile.arguments.contains("--load-extension=\(ext.directory)"))
            #expect(profile.arguments.contains("--headless=new"))
        case .firefox:
            #expect(manifest["allowed_extensions"] == ["webauthn-bridge@webauthn-bridge"])
            #expect(
                readFile("\(root)/firefox-profile/extensions/webauthn-bridge@webauthn-bridge") == ext.directory + "\n")
            let prefs = readFile("\(root)/firefox-profile/user.js") ?? ""
            #expect(prefs.contains("user_pref(\"xpinstall.signatures.required\", false);"))
            #expect(prefs.contains("user_pref(\"extensions.autoDisableScopes\", 0);"))
            #expect(profile.environment.contains { $0 == ("HOME", "\(root)/home") })
        }
    }

    @Test func quotesWordsForTheShell() {
        #expect(shellQuoted("/usr/bin/chromium") == "/usr/bin/chromium")
        #expect(shellQuoted("--user-data-dir=/tmp/a b") == "'--user-data-dir=/tmp/a b'")
        #expect(shellQuoted("it's") == "'it'\\''s'")
    }
}
