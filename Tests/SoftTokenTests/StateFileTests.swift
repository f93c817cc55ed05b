import CFIDO2
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct StateFileTests {
    @Test func credentialSurvivesReloadingTheTokenFromItsFile() throws {
        let fixture = try TokenFixture(pin: "1234")
        var request = CredentialRequest()
        request.residentKey = true
        let credential = try fixture.open().makeCredential(request, pin: "1234")
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try fixture.reload()
        let device = try fixture.open()
        #expect(fido_dev_has_pin(device.handle))
        let byID = try device.getAssertion(allow: [credential.credentialID])
        #expect(libfido2Verify(byID[0], publicKey: credential.publicKey) == FIDO_OK)
        #expect(byID[0].signCount == 2, "the counter continues where it was")
        let discovered = try device.getAssertion(pin: "1234")
        #expect(discovered[0].userID == Array("user-1".utf8))
    }

    @Test func stateFileIsPrivateAndSaysItIsATestAuthenticator() throws {
        let fixture = try TokenFixture()
        var info = stat()
        #expect(stat(fixture.stateFile, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: fixture.stateFile, encoding: .utf8)
        #expect(text.contains("Development/test authenticator"))
        #expect(fixture.token.summary().notice.contains("development/test authenticator"))
    }

    @Test func leftoverTemporaryFileFromAnInterruptedWriteIsIgnoredAndReplaced() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        // A kill -9 between write and rename leaves a partial FILE.tmp behind, with loose permissions.
        let temporary = StateFile.temporaryPath(for: fixture.stateFile)
        #expect(
            FileManager.default.createFile(
                atPath: temporary, contents: Data("{\"format\": \"webauthn-br".utf8),
                attributes: [.posixPermissions: 0o644]))
        try fixture.reload()
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try fixture.token.setPresence(.automatic)  // saves the state file whole
        #expect(!FileManager.default.fileExists(atPath: temporary), "the next whole save renamed over it")
        var info = stat()
        #expect(stat(fixture.stateFile, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().credentials.first?.signCount == 1)
    }

    /// Replacing a discoverable credential (same RP and user) is a change the journal cannot say: saved whole.
    @Test func failedSaveLeavesMemoryAndDiskUnchanged() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        let first = try device.makeCredential(request)
        // A directory where the temporary file must go makes open(2) fail, even for root.
        let temporary = StateFile.temporaryPath(for: fixture.stateFile)
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        expectFido(FIDO_ERR_ERR_OTHER) { try device.makeCredential(request) }
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID], "memory rolled back")
        #expect(
            try SoftToken(stateFile: fixture.stateFile).summary().credentials.map(\.credentialID) == [
                first.credentialID
            ])
        try FileManager.default.removeItem(atPath: temporary)
        let replacement = try device.makeCredential(request)
        #expect(
            try SoftToken(stateFile: fixture.stateFile).summary().credentials.map(\.credentialID) == [
                replacement.credentialID
            ])
    }

    @Test func truncatedStateFileIsRejectedWithAClearError() throws {
        let fixture = try TokenFixture()
        let bytes = try StateFile.readAll(fixture.stateFile)
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: fixture.stateFile))
        #expect {
            _ = try SoftToken(stateFile: fixture.stateFile)
        } throws: { error in
            guard case .corruptState(let path, _) = error as? SoftTokenError else { return false }
            return path == fixture.stateFile
        }
    }

    /// What builds before the counter file wrote: `JSONEncoder`, pretty-printed, sorted, no counterGeneration.
    static func writeOldFormat(_ state: TokenState, to path: String) throws {
        var old = state
        old.counterGeneration = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(old).write(to: URL(fileURLWithPath: path))
    }

    @Test func stateFileInTheOldFormatLoadsAndIsRewrittenOnItsFirstCeremony() throws {
        let fixture = try TokenFixture(pin: "1234")
        var request = CredentialRequest()
        request.residentKey = true
        let credential = try fixture.open().makeCredential(request, pin: "1234")
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try Self.writeOldFormat(fixture.token.state, to: fixture.stateFile)
        try fixture.reload()
        #expect(fixture.token.state.counterGeneration == nil)
        let assertion = try fixture.open().getAssertion(pin: "1234")
        #expect(assertion[0].signCount == 2)
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
        let migrated = try StateFile.load(fixture.stateFile)
        #expect(migrated.counterGeneration != nil, "saved whole, in the new format")
        #expect(migrated.credentials.map(\.signCount) == [2])
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.signCount) == [3])
    }

    @Test func stateFileWrittenByAnEarlierReleaseLoads() throws {
        let fixture = try TokenFixture()
        try Data(Self.earlierReleaseFile.utf8).write(to: URL(fileURLWithPath: fixture.stateFile))
        try fixture.reload()
        let summary = fixture.token.summary()
        #expect(summary.credentials.map(\.rpID) == ["example.com"])
        #expect(summary.credentials.map(\.signCount) == [7])
        #expect(summary.credentials.map(\.userName) == ["alice"])
        #expect(fixture.token.configuration.attestation == .selfAttestation)
        #expect(fixture.token.configuration.presence == .automatic)
    }

    /// Written by `webauthn-bridge token create --attestation self` before this change (configuration shortened
    /// to the fields that differ from the defaults, one credential record added by hand).
    static let earlierReleaseFile = """
        {
          "configuration" : {
            "attestation" : "self",
            "presence" : {
              "automatic" : {

              }
            }
          },
          "creationCounter" : 1,
          "credentials" : [
            {
              "algorithm" : -7,
              "created" : 1,
              "credProtect" : 1,
              "discoverable" : true,
              "id" : "AQIDBA==",
              "rpID" : "example.com",
              "rpName" : "Example",
              "signCount" : 7,
              "userDisplayName" : "Alice",
              "userID" : "dXNlci0x",
              "userName" : "alice"
            }
          ],
          "format" : "webauthn-bridge SoftToken",
          "largeBlobArray" : "gHa+i1KNAHX3qumNb6V6bTw=",
          "notice" : "Development/test authenticator. Holds unprotected private keys; never use it for real accounts.",
          "pinRetries" : 8,
          "uvRetries" : 8,
          "version" : 1,
          "wrappingKey" : "NZrtaF5QQ/Kxtpsp3DkkEwiGMsKyrppgTxToSY9e8g0="
        }
        """

    @Test func createRefusesToOverwriteAnExistingFile() throws {
        let fixture = try TokenFixture()
        #expect(throws: SoftTokenError.fileExists(fixture.stateFile)) {
            _ = try SoftToken.create(at: fixture.stateFile, configuration: .init(), pin: nil)
        }
    }

    @Test func missingFileIsACannotReadError() {
        #expect {
            _ = try SoftToken(stateFile: "/nonexistent/softtoken.json")
        } throws: { error in
            if case .cannotRead = error as? SoftTokenError { return true }
            return false
        }
    }

    @Test func summaryListsCredentialsWithoutSecrets() throws {
        let fixture = try TokenFixture(pin: "1234")
        var request = CredentialRequest()
        request.residentKey = true
        let credential = try fixture.open().makeCredential(request, pin: "1234")
        let summary = fixture.token.summary()
        #expect(summary.pinSet)
        #expect(summary.pinRetries == 8)
        #expect(summary.credentials.count == 1)
        let entry = summary.credentials[0]
        #expect(entry.rpID == "example.com")
        #expect(entry.userName == "alice")
        #expect(entry.userDisplayName == "Alice")
        #expect(entry.userID == Array("user-1".utf8))
        #expect(entry.credentialID == credential.credentialID)
        #expect(entry.algorithm == -7)
        #expect(entry.discoverable)
        let json = String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)
        #expect(!json.contains("wrappingKey"))
        #expect(!json.contains("pinHash"))
        #expect(!json.contains("attestationKey"))
    }
}
