import CFIDO2
import CTAP
import Foundation
import Synchronization
import Testing

@testable import FIDO
@testable import SoftToken

/// The fault plan's parts the integration fault matrix relies on (docs/robustness.md): faults aimed at one
/// command, counted hits, clientPIN subcommands, a key pulled out mid-message, and the fault file through which
/// another process's token gets its plan. libfido2 is the judge of every corrupted answer.
@Suite struct FaultPlanTests {
    @Test(
        arguments: [
            (ResponseFault.shortReport, FIDO_ERR_RX), (.truncatedCBOR, FIDO_ERR_RX_NOT_CBOR),
            (.oversizedCBOR, FIDO_ERR_RX),
            (.garbage, FIDO_ERR_RX), (.badSequence, FIDO_ERR_RX),
        ] as [(ResponseFault, Int32)])
    func aCorruptedAnswerToTheAimedCommandFailsOnlyThatCommand(fault: ResponseFault, expected: Int32) throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(command: CTAPCommand.makeCredential.rawValue, response: fault, times: 1)
        let device = try fixture.open(timeoutMS: 2000)  // getInfo is not aimed at: the open speaks CTAP2
        #expect(fido_dev_is_fido2(device.handle))
        expectFido(expected) { try device.makeCredential() }
        // One hit only: the next makeCredential is answered correctly, and both commands ran and were saved.
        try device.makeCredential()
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().credentials.count == 2)
    }

    @Test func aStrayAnswerOnAnotherChannelIsIgnored() throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(command: CTAPCommand.makeCredential.rawValue, response: .strayReport)
        try fixture.open(timeoutMS: 2000).makeCredential()
    }

    @Test func aClientPINSubcommandAnswersTheInjectedStatus() throws {
        let fixture = try TokenFixture(pin: "123456")
        fixture.token.faults = FaultPlan(clientPINErrors: [0x09: CTAPStatus.pinBlocked.rawValue])
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_BLOCKED) { try device.makeCredential(pin: "123456") }
        #expect((try device.pinRetries()) == 8, "getPINRetries (subcommand 1) is answered as usual")
        fixture.token.faults = .none
        try device.makeCredential(pin: "123456")
    }

    @Test func aKeyUnpluggedMidMessageLeavesItsStateForTheReplug() throws {
        let fixture = try TokenFixture()
        try fixture.open().makeCredential()
        fixture.token.faults = FaultPlan(command: CTAPCommand.makeCredential.rawValue, unplugAfterReports: 2)
        let device = try fixture.open(timeoutMS: 1000)
        expectFido(FIDO_ERR_TX) { try device.makeCredential() }
        #expect(!FileManager.default.fileExists(atPath: fixture.stateFile))
        try FileManager.default.moveItem(atPath: fixture.stateFile + ".unplugged", toPath: fixture.stateFile)
        try fixture.reload()
        #expect(fixture.token.summary().credentials.count == 1, "the interrupted request never ran")
        try fixture.open().makeCredential()
    }

    @Test func theFaultFileIsTakenUpAtTheNextRequestAndEndsWithIt() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open(timeoutMS: 2000)
        let file = fixture.stateFile + ".faults"
        try #"{"injectedErrors": {"1": 40}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        expectFido(FIDO_ERR_KEY_STORE_FULL) { try device.makeCredential() }
        expectFido(FIDO_ERR_KEY_STORE_FULL) { try device.makeCredential() }
        try FileManager.default.removeItem(atPath: file)
        try device.makeCredential()
        #expect(fixture.token.faults == .none)
    }

    @Test func anUntouchedKeyWaitsUntilThePlanIsLiftedAndThenAnswers() throws {
        let fixture = try TokenFixture()
        let file = fixture.stateFile + ".faults"
        try #"{"command": 1, "response": "untouched"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let device = try fixture.open(timeoutMS: 60_000)
        let outcome = Mutex<Int32?>(nil)
        let thread = Thread {
            do {
                try device.makeCredential()
                outcome.withLock { $0 = FIDO_OK }
            } catch {
                outcome.withLock { $0 = (error as? FIDOError)?.code ?? FIDO_ERR_INTERNAL }
            }
        }
        thread.start()
        // The request is parked, waiting for the touch (the event: the token's channel is busy).
        while fixture.token.locked({ fixture.token.transport.busy == nil }) { usleep(10_000) }
        #expect(outcome.withLock { $0 } == nil)
        try FileManager.default.removeItem(atPath: file)
        while outcome.withLock({ $0 }) == nil { usleep(10_000) }
        #expect(outcome.withLock { $0 } == FIDO_OK)
    }

    @Test func anUntouchedKeyHonoursCancel() throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(command: CTAPCommand.makeCredential.rawValue, response: .untouched)
        let device = try fixture.open(timeoutMS: 60_000)
        let outcome = Mutex<Int32?>(nil)
        let thread = Thread {
            do {
                try device.makeCredential()
                outcome.withLock { $0 = FIDO_OK }
            } catch {
                outcome.withLock { $0 = (error as? FIDOError)?.code ?? FIDO_ERR_INTERNAL }
            }
        }
        thread.start()
        while fixture.token.locked({ fixture.token.transport.busy == nil }) { usleep(10_000) }
        fido_dev_cancel(device.handle)
        while outcome.withLock({ $0 }) == nil { usleep(10_000) }
        #expect(outcome.withLock { $0 } == FIDO_ERR_KEEPALIVE_CANCEL)
        #expect(fixture.token.summary().credentials.isEmpty, "a cancelled request makes nothing")
    }

    @Test func aMissingFaultFileLeavesAPlanSetInProcess() throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(injectedErrors: [
            CTAPCommand.makeCredential.rawValue: CTAPStatus.keyStoreFull.rawValue
        ])
        expectFido(FIDO_ERR_KEY_STORE_FULL) { try fixture.open().makeCredential() }
    }

    @Test func anUnreadableFaultFileIsNoPlan() {
        #expect(FaultPlanFile.plan(from: "{not json") == .none)
        #expect(FaultPlanFile.plan(from: #"{"response": "no-such-fault"}"#) == .none)
        #expect(
            FaultPlanFile.plan(from: #"{"command": 2, "response": "stall", "times": 1}"#)
                == FaultPlan(command: 2, response: .stall, times: 1))
    }
}
