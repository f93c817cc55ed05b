import Foundation
import Testing

@testable import Diagnostics

/// How the binary was installed decides what doctor tells the user to run.
struct InstallationTests {
    static func scratch() throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("installation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        return base.path
    }

    /// install.sh's record beside `executable`, as a run with or without --system leaves it.
    static func install(at executable: String, system: Bool) throws {
        let directory = (executable as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let record = "dir \(directory)\nfile \(executable)\nmode \(system ? "system" : "user")\n"
        FileManager.default.createFile(atPath: directory + "/installed-files", contents: Data(record.utf8))
    }

    @Test func thePackagedHostBesideThePackagesCopyrightIsThePackage() throws {
        let root = try Self.scratch()
        #expect(Installation.of(executable: Installation.packagedHost, systemRoot: root) == .notInstalled)
        try FileManager.default.createDirectory(
            atPath: root + "/usr/share/doc/webauthn-bridge", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + Installation.packageCopyright, contents: Data())
        let installation = Installation.of(executable: Installation.packagedHost, systemRoot: root)
        #expect(installation == .package && installation.isSystemWide)
        #expect(installation.registerAgain(browser: "chromium") == "sudo apt install --reinstall webauthn-bridge")
    }

    @Test func aPerUserInstallIsFixedByInstallShForThatBrowser() throws {
        let home = try Self.scratch()
        let host = home + "/.local/libexec/webauthn-bridge/webauthn-bridge"
        try Self.install(at: host, system: false)
        let installation = Installation.of(executable: host)
        #expect(installation == .installScript(prefix: home + "/.local", system: false) && !installation.isSystemWide)
        #expect(
            installation.registerAgain(browser: "chromium")
                == "run ./install.sh --browser chromium in the webauthn-bridge clone")
    }

    @Test func aSystemInstallIsFixedByInstallShSystem() throws {
        let root = try Self.scratch()
        let host = root + "/opt/wb/libexec/webauthn-bridge/webauthn-bridge"
        try Self.install(at: host, system: true)
        let installation = Installation.of(executable: host)
        #expect(installation == .installScript(prefix: root + "/opt/wb", system: true) && installation.isSystemWide)
        #expect(
            installation.registerAgain()
                == "run sudo ./install.sh --system --prefix \(root)/opt/wb in the webauthn-bridge clone")
    }

    @Test func aBuildTreeIsNotInstalled() {
        #expect(Installation.of(executable: "/src/.build/debug/webauthn-bridge") == .notInstalled)
        #expect(Installation.notInstalled.registerAgain() == "run ./install.sh in the webauthn-bridge clone")
    }
}
