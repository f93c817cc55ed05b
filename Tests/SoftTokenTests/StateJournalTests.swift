import CFIDO2
import FIDO
import Foundation
import Testing

@testable import SoftToken

/// Credentials made and retry counters changed go to `FILE.journal` (see `StateJournal`), not a whole save.
@Suite struct StateJournalTests {
    @Test func aCredentialIsAppendedToTheJournalAndSurvivesAReload() throws {
        let fixture = try TokenFixture()
        let stateBefore = try StateFile.readAll(fixture.stateFile)
        let first = try fixture.open().makeCredential()
        let second = try fixture.open().makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        #expect(try StateFile.readAll(fixture.stateFile) == stateBefore, "the state file was not rewritten")
        #expect(try journalLines(fixture).count == 3, "a header and one line per credential")
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID, second.credentialID])
        #expect(fixture.token.state.creationCounter == 2)
        let assertion = try fixture.open().getAssertion(allow: [second.credentialID])
        #expect(libfido2Verify(assertion[0], publicKey: second.publicKey) == FIDO_OK)
    }

    /// A counter file written before the latest credentials were made still holds the first ones' counters.
    @Test func countersFromBeforeACredentialWasMadeStillApply() throws {
        let fixture = try TokenFixture()
        let first = try fixture.open().makeCredential()
        try fixture.open().getAssertion(allow: [first.credentialID])
        try fixture.open().getAssertion(allow: [first.credentialID])
        try fixture.open().makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        try fixture.reload()
        #expect(try fixture.open().getAssertion(allow: [first.credentialID])[0].signCount == 3)
    }

    @Test func pinRetriesAreJournaledAndSurviveAReload() throws {
        let fixture = try TokenFixture(pin: "1234")
        let stateBefore = try StateFile.readAll(fixture.stateFile)
        expectFido(FIDO_ERR_PIN_INVALID) { try fixture.open().makeCredential(pin: "9999") }
        #expect(try StateFile.readAll(fixture.stateFile) == stateBefore)
        try fixture.reload()
        #expect((try fixture.open().pinRetries()) == Int32(TokenState.maxPINRetries - 1))
    }

    @Test func aChangeTheJournalCannotSaySavesWholeAndRetiresTheJournal() throws {
        let fixture = try TokenFixture()
        var request = CredentialRequest()
        request.residentKey = true
        try fixture.open().makeCredential(request)
        #expect(FileManager.default.fileExists(atPath: StateJournal.path(for: fixture.stateFile)))
        let replacement = try fixture.open().makeCredential(request)  // same RP and user: replaces
        #expect(!FileManager.default.fileExists(atPath: StateJournal.path(for: fixture.stateFile)))
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [replacement.credentialID])
    }

    @Test func aJournalPastItsLimitIsFoldedIntoTheStateFile() throws {
        let fixture = try TokenFixture()
        fixture.token.store.compactionBytes = 2000
        var made: [[UInt8]] = []
        for i in 0..<8 {
            made.append(
                try fixture.open().makeCredential(CredentialRequest(userID: Array("user-\(i)".utf8))).credentialID)
        }
        let journal = try StateFile.readAll(StateJournal.path(for: fixture.stateFile))
        #expect(journal.count < 2000 + 1000, "folded at least once")
        #expect(try StateFile.load(fixture.stateFile).credentials.map { Array($0.id) } == made)
        let wholeOnly = try JSONDecoder().decode(TokenState.self, from: Data(try StateFile.readAll(fixture.stateFile)))
        #expect(wholeOnly.credentials.count >= 2, "the state file itself holds the folded credentials")
    }

    /// kill -9 or power loss in the middle of an append leaves a partial last line: that append was never
    /// acknowledged, so it is dropped, and the next append cuts it off rather than following it.
    @Test(arguments: [#"{"creationCounter":2,"credential":{"algor"#, "\u{0}\u{0}\u{0}\u{0}\n"])
    func aPartialLastLineIsDroppedAndCutOffByTheNextAppend(tail: String) throws {
        let fixture = try TokenFixture()
        let first = try fixture.open().makeCredential()
        try appendToJournal(fixture, tail)
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID])
        let second = try fixture.open().makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID, second.credentialID])
    }

    @Test func anUnreadableLineBeforeTheLastIsAClearError() throws {
        let fixture = try TokenFixture()
        try fixture.open().makeCredential()
        try appendToJournal(fixture, "{\"credential\":12}\n")
        try fixture.open().makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        // The running token knew the journal's size and cut the bad line off; a hand-made journal keeps it.
        try appendToJournal(fixture, "{\"credential\":12}\n{\"pinRetries\":7}\n")
        #expect {
            _ = try SoftToken(stateFile: fixture.stateFile)
        } throws: { error in
            guard case .corruptState(let path, let reason) = error as? SoftTokenError else { return false }
            return path == StateJournal.path(for: fixture.stateFile) && reason.contains("journal line 4")
        }
    }

    @Test func aJournalOfAnEarlierGenerationIsIgnoredAndReplaced() throws {
        let fixture = try TokenFixture()
        let first = try fixture.open().makeCredential()
        let journal = try StateFile.readAll(StateJournal.path(for: fixture.stateFile))
        try fixture.token.setPresence(.automatic)  // whole save: new generation, the credential is in the file
        // The old journal reappears (say, restored from a backup): applying it would list the credential twice.
        try Data(journal).write(to: URL(fileURLWithPath: StateJournal.path(for: fixture.stateFile)))
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID])
        let second = try fixture.open().makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID, second.credentialID])
    }

    /// A journal that cannot be written is retired by a whole save, which holds the new credential too.
    @Test func aJournalThatCannotBeWrittenIsReplacedByAWholeSave() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let first = try device.makeCredential()
        let stateBefore = try StateFile.readAll(fixture.stateFile)
        try breakJournal(fixture)
        let second = try device.makeCredential(CredentialRequest(userID: Array("user-2".utf8)))
        #expect(try StateFile.readAll(fixture.stateFile) != stateBefore, "saved whole")
        let wholeOnly = try JSONDecoder().decode(TokenState.self, from: Data(try StateFile.readAll(fixture.stateFile)))
        #expect(wholeOnly.credentials.map { Array($0.id) } == [first.credentialID, second.credentialID])
    }

    @Test func failedAppendAndWholeSaveLeaveMemoryAndDiskUnchanged() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let first = try device.makeCredential()
        try breakJournal(fixture)
        // A directory where the state file's temporary file must go makes the whole save fail too, even for root.
        let temporary = StateFile.temporaryPath(for: fixture.stateFile)
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        expectFido(FIDO_ERR_ERR_OTHER) { try device.makeCredential(CredentialRequest(userID: Array("user-2".utf8))) }
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID], "memory rolled back")
        try FileManager.default.removeItem(atPath: temporary)
        let second = try device.makeCredential(CredentialRequest(userID: Array("user-2".utf8)))  // saved whole
        try FileManager.default.removeItem(atPath: StateJournal.path(for: fixture.stateFile))
        try fixture.reload()
        #expect(fixture.token.summary().credentials.map(\.credentialID) == [first.credentialID, second.credentialID])
    }

    @Test func failedJournalCreationAndWholeSaveLeaveMemoryAndDiskUnchanged() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        for path in [StateJournal.path(for: fixture.stateFile), fixture.stateFile].map(StateFile.temporaryPath) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        expectFido(FIDO_ERR_ERR_OTHER) { try device.makeCredential() }
        #expect(fixture.token.summary().credentials.isEmpty, "memory rolled back")
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().credentials.isEmpty)
        try FileManager.default.removeItem(atPath: StateFile.temporaryPath(for: fixture.stateFile))
        try device.makeCredential()
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().credentials.count == 1)
    }

    @Test func aJournalThatCannotBeReadIsAClearError() throws {
        let fixture = try TokenFixture()
        try fixture.open().makeCredential()
        try breakJournal(fixture)
        #expect(throws: SoftTokenError.cannotRead(path: StateJournal.path(for: fixture.stateFile), errno: EISDIR)) {
            _ = try SoftToken(stateFile: fixture.stateFile)
        }
    }

    /// A directory in the journal's place: it can be neither opened for appending nor renamed over.
    private func breakJournal(_ fixture: TokenFixture) throws {
        let journalPath = StateJournal.path(for: fixture.stateFile)
        try FileManager.default.removeItem(atPath: journalPath)
        try FileManager.default.createDirectory(atPath: journalPath, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: journalPath + "/keep", withIntermediateDirectories: false)
    }

    private func journalLines(_ fixture: TokenFixture) throws -> [Substring] {
        let text = String(decoding: try StateFile.readAll(StateJournal.path(for: fixture.stateFile)), as: UTF8.self)
        return text.split(separator: "\n")
    }

    private func appendToJournal(_ fixture: TokenFixture, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: StateJournal.path(for: fixture.stateFile)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }
}
