import BridgeHost
import Foundation
import Testing

@testable import Diagnostics

struct DoctorManifestTests {
    /// A scratch home where Firefox has been used, and a scratch system root.
    static func scratch() throws -> (home: String, systemRoot: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base + "/home/.mozilla", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/root", withIntermediateDirectories: true)
        return (base + "/home", base + "/root")
    }

    static func firefoxCheck(home: String, systemRoot: String) throws -> Doctor.Check {
        let doctor = Doctor(environment: ["HOME": home], systemRoot: systemRoot)
        let profile = try #require(
            BrowserProfile.all(home: home, configHome: home + "/.config", systemRoot: systemRoot).first)
        return doctor.manifest(profile)
    }

    static func writeManifest(in directory: String, hostPath: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let manifest =
            #"{"name": "webauthn_bridge", "type": "stdio", "path": "\#(hostPath)", "allowed_extensions": ["webauthn-bridge@webauthn-bridge"]}"#
        try manifest.write(toFile: directory + "/webauthn_bridge.json", atomically: true, encoding: .utf8)
    }

    @Test func aSystemWideManifestIsFoundWhenTheUserHasNone() throws {
        let (home, root) = try Self.scratch()
        try Self.writeManifest(
            in: root + "/usr/lib/mozilla/native-messaging-hosts", hostPath: "/nonexistent/system-host")
        let check = try Self.firefoxCheck(home: home, systemRoot: root)
        #expect(check.status == .fail)
        #expect(
            check.detail
                == "\(root)/usr/lib/mozilla/native-messaging-hosts/webauthn_bridge.json points at /nonexistent/system-host, which is not an executable"
        )
    }

    @Test func theUsersOwnManifestComesFirst() throws {
        let (home, root) = try Self.scratch()
        try Self.writeManifest(
            in: root + "/usr/lib/mozilla/native-messaging-hosts", hostPath: "/nonexistent/system-host")
        try Self.writeManifest(in: home + "/.mozilla/native-messaging-hosts", hostPath: "/nonexistent/user-host")
        let check = try Self.firefoxCheck(home: home, systemRoot: root)
        #expect(check.detail.contains("points at /nonexistent/user-host"))
    }

    @Test func noManifestAnywhereNamesBothPlaces() throws {
        let (home, root) = try Self.scratch()
        let check = try Self.firefoxCheck(home: home, systemRoot: root)
        #expect(check.status == .fail)
        #expect(
            check.detail
                == "\(home)/.mozilla/native-messaging-hosts/webauthn_bridge.json is missing (and so is \(root)/usr/lib/mozilla/native-messaging-hosts/webauthn_bridge.json)"
        )
    }

    // The advice fits how the bridge was installed.

    @Test func withoutAProfileAPerUserInstallIsToldToStartTheBrowserThenInstallSh() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base + "/home", withIntermediateDirectories: true)
        let doctor = Doctor(
            environment: ["HOME": base + "/home", "PATH": base], systemRoot: base,
            installation: .installScript(prefix: base + "/home/.local", system: false))
        let checks = doctor.manifests()
        #expect(checks.map(\.status) == [.fail])
        #expect(
            checks.first?.fix
                == "start your browser once (it makes its profile), then run ./install.sh in the webauthn-bridge clone")
    }

    @Test func aPackageInstallIsCheckedThroughTheSystemManifestsOfTheBrowsersOnPATH() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base + "/home", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/bin", withIntermediateDirectories: true)
        FileManager.default.createFile(
            atPath: base + "/bin/chromium", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        let doctor = Doctor(
            environment: ["HOME": base + "/home", "PATH": base + "/bin"], systemRoot: base, installation: .package)
        let checks = doctor.manifests()
        // No profile yet, and no "start your browser, then run ./install.sh": Chromium is on PATH, and its system
        // manifest is what the package put in place (missing here).
        #expect(checks.map(\.name) == ["host manifest for Chromium"])
        #expect(checks.first?.status == .fail)
        #expect(
            checks.first?.detail.contains(base + "/etc/chromium/native-messaging-hosts/webauthn_bridge.json") == true)
        #expect(checks.first?.fix == "sudo apt install --reinstall webauthn-bridge")
    }

    @Test func aPackageInstallWithNoBrowserAtAllIsAWarningNotAFailure() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base + "/home", withIntermediateDirectories: true)
        let doctor = Doctor(
            environment: ["HOME": base + "/home", "PATH": base], systemRoot: base, installation: .package)
        let checks = doctor.manifests()
        #expect(checks.map(\.status) == [.warn] && Doctor.passed(checks))
    }
}
