import Foundation
import Testing
import WebAuthn

@testable import BridgeHost

struct LaunchContextTests {
    @Test func chromiumPassesTheExtensionOrigin() {
        #expect(
            LaunchContext.browserLaunch(arguments: ["/x/webauthn-bridge", "chrome-extension://abcdef/"])
                == .chromium(extensionID: "abcdef"))
    }

    @Test func firefoxPassesManifestPathAndExtensionID() {
        #expect(
            LaunchContext.browserLaunch(arguments: [
                "/x/webauthn-bridge", "/home/u/.mozilla/native-messaging-hosts/webauthn_bridge.json", "a@b",
            ])
                == .firefox(
                    manifestPath: "/home/u/.mozilla/native-messaging-hosts/webauthn_bridge.json", extensionID: "a@b"))
    }

    @Test(arguments: [
        ["/x/webauthn-bridge"], ["/x/webauthn-bridge", "token", "show", "f"], ["/x/webauthn-bridge", "doctor"],
    ])
    func cliCommandLinesAreNotBrowserLaunches(arguments: [String]) {
        #expect(LaunchContext.browserLaunch(arguments: arguments) == nil)
    }

    @Test func onlyOurExtensionsAndConfiguredOnesAreServed() {
        let list = ExtensionAllowList(extra: ["extra@example.com"])
        #expect(list.permits(.firefox(manifestPath: "/m.json", extensionID: ExtensionAllowList.firefoxID)))
        #expect(list.permits(.chromium(extensionID: ExtensionAllowList.chromiumID)))
        #expect(list.permits(.firefox(manifestPath: "/m.json", extensionID: "extra@example.com")))
        #expect(!list.permits(.firefox(manifestPath: "/m.json", extensionID: "evil@example.com")))
        #expect(!list.permits(.chromium(extensionID: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")))
    }

    @Test func chromiumIDMatchesTheExtensionKey() throws {
        let idFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../extension/chromium-id.txt")
        let recorded = try String(contentsOf: idFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(recorded == ExtensionAllowList.chromiumID)
    }

    /// The Firefox id the host serves is the extension's own, and the one the host manifest lets start the host.
    @Test func firefoxIDIsTheExtensionsGeckoID() throws {
        func json(_ path: String) throws -> JSONValue {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(path)
            return try JSONValue.parse(String(contentsOf: url, encoding: .utf8))
        }
        let extensionManifest = try json("../../extension/manifest.json")
        #expect(
            extensionManifest["browser_specific_settings"]?["gecko"]?["id"]?.stringValue == ExtensionAllowList.firefoxID
        )
        let hostManifest = try json("../../manifests/firefox.json.in")
        #expect(hostManifest["allowed_extensions"]?.arrayValue == [.string(ExtensionAllowList.firefoxID)])
    }
}

struct HostConfigurationTests {
    func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/webauthn-bridge", withIntermediateDirectories: true)
        return dir
    }

    @Test func defaultsFollowXDGStateHome() throws {
        let config = try HostConfiguration.load(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/state"])
        #expect(config.logFile == "/state/webauthn-bridge/host.log")
        #expect(config.logLevel == .info)
        #expect(config.softTokenPath == nil)
    }

    @Test func environmentOverridesTheConfigFile() throws {
        let dir = try scratch()
        try #"{"logLevel":"warn","pinentry":"/usr/bin/pinentry-gtk-2","logFile":"/tmp/a.log"}"#
            .write(toFile: dir + "/webauthn-bridge/config.json", atomically: true, encoding: .utf8)
        let config = try HostConfiguration.load(environment: [
            "HOME": "/home/u", "XDG_CONFIG_HOME": dir, "WEBAUTHN_BRIDGE_LOG_LEVEL": "trace",
            "WEBAUTHN_BRIDGE_SOFT_TOKEN": "/tmp/t.state",
        ])
        #expect(config.logLevel == .trace)
        #expect(config.pinentryProgram == "/usr/bin/pinentry-gtk-2")
        #expect(config.logFile == "/tmp/a.log")
        #expect(config.softTokenPath == "/tmp/t.state")
    }

    @Test func frameLimitAndExtraExtensionsComeFromTheConfigFile() throws {
        let dir = try scratch()
        try #"{"maxInboundFrameBytes":65536,"allowedExtensions":["a@example.com","b@example.com"]}"#
            .write(toFile: dir + "/webauthn-bridge/config.json", atomically: true, encoding: .utf8)
        let config = try HostConfiguration.load(environment: ["HOME": "/h", "XDG_CONFIG_HOME": dir])
        #expect(config.maxInboundFrameBytes == 65536)
        #expect(config.extraAllowedExtensions == ["a@example.com", "b@example.com"])
    }

    @Test(arguments: [
        #"{"logLevel":"loud"}"#, #"{"colour":"blue"}"#, "[1]", #"{"pinentry":7}"#, "not json",
        #"{"maxInboundFrameBytes":1.5}"#, #"{"maxInboundFrameBytes":0}"#, #"{"maxInboundFrameBytes":"9"}"#,
        #"{"allowedExtensions":["a@example.com",1]}"#, #"{"allowedExtensions":"a@example.com"}"#,
    ])
    func badConfigFilesAreReportedNotIgnored(contents: String) throws {
        let dir = try scratch()
        try contents.write(toFile: dir + "/webauthn-bridge/config.json", atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) {
            try HostConfiguration.load(environment: ["HOME": "/h", "XDG_CONFIG_HOME": dir])
        }
    }

    @Test func badLogLevelInEnvironmentIsReported() {
        #expect(throws: ConfigurationError.self) {
            try HostConfiguration.load(environment: ["HOME": "/h", "WEBAUTHN_BRIDGE_LOG_LEVEL": "verbose"])
        }
    }
}

struct HostLogTests {
    @Test func rotationKeepsABoundedNumberOfFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-log-\(UUID().uuidString)").path
        let log = HostLog(path: dir + "/host.log", level: .info, maxBytes: 200, keptFiles: 2)
        for i in 0..<40 { log.info("line \(i) with some padding to fill the file") }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files == ["host.log", "host.log.1", "host.log.2"])
        let current = try String(contentsOfFile: dir + "/host.log", encoding: .utf8)
        #expect(current.contains("line 39"))
        let size = try FileManager.default.attributesOfItem(atPath: dir + "/host.log")[.size] as? Int
        #expect((size ?? .max) <= 200)
    }

    @Test func levelsBelowTheThresholdAreNotWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-log-\(UUID().uuidString)").path
        let log = HostLog(path: dir + "/host.log", level: .warn)
        log.info("quiet")
        log.warn("loud", request: "r-1")
        let text = try String(contentsOfFile: dir + "/host.log", encoding: .utf8)
        #expect(!text.contains("quiet"))
        #expect(text.contains("WARN [r-1] loud"))
    }

    @Test func servedRequestTagsOnlyThisThreadsLinesAndEndsWithTheBody() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-log-\(UUID().uuidString)").path
        let log = HostLog(path: dir + "/host.log", level: .info)
        HostLog.serving("r-7") {
            log.info("inside")
            let other = Thread { log.info("other thread") }
            other.start()
            while !other.isFinished { usleep(1000) }
        }
        log.info("after")
        let lines = try String(contentsOfFile: dir + "/host.log", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.contains { $0.hasSuffix("INFO [r-7] inside") })
        #expect(lines.contains { $0.hasSuffix("INFO other thread") })
        #expect(lines.contains { $0.hasSuffix("INFO after") })
    }

    @Test func theLogFileIsPrivateAndAppendedTo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-log-\(UUID().uuidString)").path
        HostLog(path: dir + "/host.log", level: .info).info("first run")
        HostLog(path: dir + "/host.log", level: .info).info("second run")
        let text = try String(contentsOfFile: dir + "/host.log", encoding: .utf8)
        #expect(text.contains("first run") && text.contains("second run"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/host.log")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anUnwritableLogDoesNotStopTheHost() {
        let log = HostLog(path: "/proc/webauthn-bridge-cannot/host.log", level: .info)
        log.info("first")
        log.info("second")  // no crash, no hang: the failure was reported once on stderr
        #expect(log.enabled(.info))
    }
}

struct RequestIDRecoveryTests {
    @Test func theIDIsReadFromAFrameTheStrictParserRefuses() {
        #expect(
            RequestLoop.recoverID(Array(#"{"id":"c-1","options":{"challenge":{"__binary__":"***"}}}"#.utf8)) == "c-1")
    }

    @Test(arguments: [#"{"id":7}"#, #"{"id":""}"#, #"{"type":"info"}"#, "[1]", "{"])
    func noUsableIDGivesNil(frame: String) {
        #expect(RequestLoop.recoverID(Array(frame.utf8)) == nil)
    }
}

struct PathHelperTests {
    @Test func parentDirectoryMatchesNSStringForOurPaths() {
        #expect(parentDirectory(of: "/a/b/host.log") == "/a/b")
        #expect(parentDirectory(of: "/host.log") == "/")
        #expect(parentDirectory(of: "host.log") == "")
        #expect(fileName(of: "/a/b/t.state") == "t.state")
        #expect(fileName(of: "t.state") == "t.state")
    }
}
