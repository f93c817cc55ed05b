import Foundation
import Glibc
import Testing

@testable import BridgeHost

struct InstalledExtensionIDsTests {
    static let crxID = "bcdefghijklmnopabcdefghijklmnopa"
    static let otherID = "ponmlkjihgfedcbaponmlkjihgfedcba"

    /// A fresh directory with `text` written as chromium-id.txt (mode 0644), and that file's path.
    func idFile(_ bytes: [UInt8], mode: mode_t = 0o644) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wb-installed-ids-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/chromium-id.txt"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
        return path
    }

    func idFile(_ text: String, mode: mode_t = 0o644) throws -> String { try idFile(Array(text.utf8), mode: mode) }

    func read(_ path: String) -> InstalledExtensionIDs.Reading {
        InstalledExtensionIDs.read(file: path, trustedOwner: getuid())
    }

    @Test(arguments: [
        ("/usr/libexec/webauthn-bridge/webauthn-bridge", "/usr/share/webauthn-bridge/chromium-id.txt"),
        ("/usr/local/libexec/webauthn-bridge/webauthn-bridge", "/usr/local/share/webauthn-bridge/chromium-id.txt"),
        (
            "/home/u/.local/libexec/webauthn-bridge/webauthn-bridge",
            "/home/u/.local/share/webauthn-bridge/chromium-id.txt"
        ),
        ("/libexec/webauthn-bridge/webauthn-bridge", "/share/webauthn-bridge/chromium-id.txt"),
    ])
    func theFileLiesInTheShareDirectoryOfTheBinarysPrefix(executable: String, expected: String) {
        #expect(InstalledExtensionIDs.idFile(forExecutable: executable) == expected)
    }

    @Test(arguments: [
        "/home/dev/src/webauthn-bridge/.build/release/webauthn-bridge", "/usr/bin/webauthn-bridge",
        "/opt/webauthn-bridge/webauthn-bridge", "/usr/libexec/other/webauthn-bridge", "webauthn-bridge",
        "libexec/webauthn-bridge/webauthn-bridge",
    ])
    func aBinaryOutsideAnInstallLayoutHasNoFile(executable: String) {
        #expect(InstalledExtensionIDs.idFile(forExecutable: executable) == nil)
    }

    @Test func aValidFileGivesItsIDs() throws {
        let path = try idFile("\(Self.crxID)\r\n\n  \(Self.otherID)\t\n")
        #expect(read(path) == .init(ids: [Self.crxID, Self.otherID], ignored: []))
    }

    @Test func aMissingFileGivesNothingAndSaysNothing() throws {
        let path = try idFile(Self.crxID)
        #expect(unlink(path) == 0)
        #expect(read(path) == .init())
    }

    @Test func malformedLinesAreLeftOutByLineNumberAndTheRestKept() throws {
        let lines = [
            Self.crxID.uppercased(), String(Self.crxID.dropLast()), Self.crxID + "a",
            String(Self.crxID.dropLast()) + "q", "webauthn-bridge@webauthn-bridge", Self.otherID,
            "chrome-extension://\(Self.crxID)/", "\u{1b}[31m\(Self.crxID)",
        ]
        let reading = read(try idFile(lines.joined(separator: "\n")))
        #expect(reading.ids == [Self.otherID])
        #expect(reading.ignored.count == 7)
        for (line, reason) in zip([1, 2, 3, 4, 5, 7, 8], reading.ignored) {
            #expect(reason.contains("line \(line) is not a Chromium extension id"), "\(reason)")
        }
    }

    @Test func bytesThatAreNotUTF8AreNoID() throws {
        let reading = read(try idFile(Array(Self.crxID.utf8.dropLast(2)) + [0xC3, 0xA9]))
        #expect(reading.ids.isEmpty)
        #expect(reading.ignored.count == 1)
    }

    @Test func anOversizedFileIsNotReadAtAll() throws {
        let idLines = String(repeating: Self.crxID + "\n", count: InstalledExtensionIDs.maximumFileBytes / 33 + 1)
        #expect(idLines.utf8.count > InstalledExtensionIDs.maximumFileBytes)
        let reading = read(try idFile(idLines))
        #expect(reading.ids.isEmpty)
        #expect(
            reading.ignored.count == 1 && reading.ignored[0].contains("larger than 4096 bytes"), "\(reading.ignored)")
    }

    @Test func aFileOfExactlyTheBoundIsRead() throws {
        let padding = String(repeating: " ", count: InstalledExtensionIDs.maximumFileBytes - 33)
        let reading = read(try idFile(Self.crxID + "\n" + padding))
        #expect(reading == .init(ids: [Self.crxID], ignored: []))
    }

    @Test func aFileOthersCanWriteIsNotTrusted() throws {
        let reading = read(try idFile(Self.crxID, mode: 0o666))
        #expect(reading.ids.isEmpty)
        #expect(reading.ignored.first?.contains("writable by its group or by others") == true, "\(reading.ignored)")
    }

    @Test(.enabled(if: getuid() == 0, "chown to another user needs root"))
    func aFileOfAnotherOwnerIsNotTrusted() throws {
        let path = try idFile(Self.crxID)
        #expect(chown(path, 4321, 4321) == 0)
        let refused = InstalledExtensionIDs.read(file: path, trustedOwner: 1234)
        #expect(refused.ids.isEmpty)
        #expect(refused.ignored.first?.contains("belongs to uid 4321") == true, "\(refused.ignored)")
        #expect(InstalledExtensionIDs.read(file: path, trustedOwner: 4321).ids == [Self.crxID])
    }

    @Test func aSymlinkIsNotFollowed() throws {
        let target = try idFile(Self.crxID)
        let link = (target as NSString).deletingLastPathComponent + "/link.txt"
        #expect(symlink(target, link) == 0)
        let reading = read(link)
        #expect(reading.ids.isEmpty)
        #expect(reading.ignored.first?.contains("cannot open") == true, "\(reading.ignored)")
    }

    @Test func aFIFOIsNeitherWaitedOnNorRead() throws {
        let path = try idFile("")
        #expect(unlink(path) == 0 && mkfifo(path, 0o644) == 0)
        let reading = read(path)  // O_NONBLOCK: returns at once although no writer ever comes
        #expect(reading.ids.isEmpty)
        #expect(reading.ignored.first?.contains("is not a regular file") == true, "\(reading.ignored)")
    }

    @Test func installedIDsServeOnlyChromiumCallersAndAreReadOnlyWhenNeeded() {
        let list = ExtensionAllowList()
        var reads = 0
        let installed = {
            reads += 1
            return [Self.crxID]
        }
        #expect(list.permits(.chromium(extensionID: ExtensionAllowList.chromiumID), installedChromiumIDs: installed))
        #expect(list.permits(.direct, installedChromiumIDs: installed))
        #expect(reads == 0)
        #expect(list.permits(.chromium(extensionID: Self.crxID), installedChromiumIDs: installed))
        #expect(!list.permits(.chromium(extensionID: Self.otherID), installedChromiumIDs: installed))
        #expect(
            !list.permits(.firefox(manifestPath: "/m.json", extensionID: Self.crxID), installedChromiumIDs: installed))
        #expect(reads == 2)
    }
}
