import CFIDO2
import FIDO
import Foundation
import Testing

@testable import SoftToken

/// Signature counters live in `FILE.counters` between saves of the state file; see `CounterFile`.
@Suite struct CounterFileTests {
    /// A counter file names the first credentials: within a generation credentials are only appended.
    @Test func countersRoundTripForTheirGenerationAndNoMoreCredentialsThanTheTokenHolds() {
        let generation = CounterFile.newGeneration()
        let bytes = CounterFile.encode([0, 1, UInt32.max], generation: generation)
        #expect(CounterFile.decode(bytes, generation: generation, atMost: 3) == [0, 1, UInt32.max])
        #expect(CounterFile.decode(bytes, generation: CounterFile.newGeneration(), atMost: 3) == nil)
        #expect(CounterFile.decode(bytes, generation: generation, atMost: 5) == [0, 1, UInt32.max])
        #expect(CounterFile.decode(bytes, generation: generation, atMost: 2) == nil)
    }

    @Test(arguments: ["truncated", "flipped", "empty", "extended"])
    func damagedCounterFileIsRejected(damage: String) {
        let generation = CounterFile.newGeneration()
        var bytes = CounterFile.encode([5, 6], generation: generation)
        switch damage {
        case "truncated": bytes.removeLast(3)
        case "flipped": bytes[bytes.count - 20] ^= 0x01
        case "empty": bytes = []
        default: bytes.append(0)
        }
        #expect(CounterFile.decode(bytes, generation: generation, atMost: 2) == nil)
    }

    @Test func assertionWritesOnlyTheCounterFileAndTheCounterSurvivesAReload() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        let stateBefore = try StateFile.readAll(fixture.stateFile)
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try fixture.open().getAssertion(allow: [credential.credentialID])
        #expect(try StateFile.readAll(fixture.stateFile) == stateBefore, "the state file was not rewritten")
        #expect(FileManager.default.fileExists(atPath: CounterFile.path(for: fixture.stateFile)))
        try fixture.reload()
        #expect(try fixture.open().getAssertion(allow: [credential.credentialID])[0].signCount == 3)
    }

    @Test func counterFileOfAnEarlierStateFileIsIgnored() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        try fixture.open().getAssertion(allow: [credential.credentialID])
        // Counters from before the next whole save, claiming far more uses than there were.
        let earlierGeneration = try #require(fixture.token.state.counterGeneration)
        try fixture.token.setPresence(.automatic)  // saves the state file whole
        let stale = CounterFile.encode([1000], generation: earlierGeneration)
        try Data(stale).write(to: URL(fileURLWithPath: CounterFile.path(for: fixture.stateFile)))
        try fixture.reload()
        #expect(try fixture.open().getAssertion(allow: [credential.credentialID])[0].signCount == 2)
    }

    @Test func creatingATokenRemovesTheCounterFileAndJournalOfAnEarlierTokenAtThatPath() throws {
        let directory =
            FileManager.default.temporaryDirectory.path
            + "/counter-leftover-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/token.state"
        try Data(CounterFile.encode([7], generation: CounterFile.newGeneration())).write(
            to: URL(fileURLWithPath: CounterFile.path(for: path)))
        try Data(StateJournal.headerLine(generation: CounterFile.newGeneration())).write(
            to: URL(fileURLWithPath: StateJournal.path(for: path)))
        _ = try SoftToken.create(at: path, configuration: SoftTokenConfiguration(), pin: nil)
        #expect(!FileManager.default.fileExists(atPath: CounterFile.path(for: path)))
        #expect(!FileManager.default.fileExists(atPath: StateJournal.path(for: path)))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func tornCounterFileFallsBackToTheStateFileCounters() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        try fixture.open().getAssertion(allow: [credential.credentialID])
        try fixture.token.setPresence(.automatic)  // saved whole: the state file holds counter 1
        try fixture.open().getAssertion(allow: [credential.credentialID])  // counter file: 2
        let counterPath = CounterFile.path(for: fixture.stateFile)
        let bytes = try StateFile.readAll(counterPath)
        try Data(bytes.prefix(bytes.count - 1)).write(to: URL(fileURLWithPath: counterPath))
        try fixture.reload()
        #expect(
            try fixture.open().getAssertion(allow: [credential.credentialID])[0].signCount == 2,
            "1 from the state file, plus this one")
    }

    @Test func failedCounterSaveLeavesTheCounterUnchanged() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        let temporary = StateFile.temporaryPath(for: CounterFile.path(for: fixture.stateFile))
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        expectFido(FIDO_ERR_ERR_OTHER) { try fixture.open().getAssertion(allow: [credential.credentialID]) }
        #expect(fixture.token.summary().credentials.first?.signCount == 0)
        try FileManager.default.removeItem(atPath: temporary)
        #expect(try fixture.open().getAssertion(allow: [credential.credentialID])[0].signCount == 1)
    }
}
