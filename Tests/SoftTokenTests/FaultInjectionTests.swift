import CFIDO2
import CTAP
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct FaultInjectionTests {
    /// After the fault, the file must still load, and a fault-free device must work again.
    func expectStateIntact(_ fixture: TokenFixture, credentials: Int, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let reloaded = try SoftToken(stateFile: fixture.stateFile)
        #expect(reloaded.summary().credentials.count == credentials, sourceLocation: sourceLocation)
        fixture.token.faults = .none
        try fixture.open(timeoutMS: 2000).makeCredential()
    }

    static let responseFaults: [ResponseFault] = [.garbage, .wrongChannel, .badSequence, .stall, .keepAliveForever]

    @Test(arguments: responseFaults) func corruptedResponsesMakeLibfido2FailWithoutHanging(fault: ResponseFault) throws
    {
        let fixture = try TokenFixture()
        let device = try fixture.open(timeoutMS: 400)
        fixture.token.faults = FaultPlan(response: fault)
        var result: Int32 = FIDO_OK
        let ms = elapsedMS {
            do { try device.makeCredential() } catch { result = (error as? FIDOError)?.code ?? FIDO_OK }
        }
        #expect(result == FIDO_ERR_RX, "\(fault): \(String(cString: fido_strerr(result)))")
        #expect(ms < 2000)
        // The command itself ran and was saved atomically; only its answer was lost.
        try expectStateIntact(fixture, credentials: 1)
    }

    /// libfido2's fido_dev_open falls back to U2F when getInfo gets no answer; the token speaks no U2F, so the
    /// next ceremony fails instead of hanging.
    @Test func faultDuringOpenLeavesADeviceThatFailsCeremonies() throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(response: .stall)
        let device = try fixture.open(timeoutMS: 300)
        #expect(!fido_dev_is_fido2(device.handle))
        #expect(throws: FIDOError.self) { try device.makeCredential() }
        try expectStateIntact(fixture, credentials: 0)
    }

    @Test func droppedConnectionFailsEveryFollowingTransfer() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        let device = try fixture.open(timeoutMS: 400)
        fixture.token.faults = FaultPlan(dropConnectionAfterReports: 2)
        var result: Int32 = FIDO_OK
        let ms = elapsedMS {
            do { try device.getAssertion(allow: [credential.credentialID]) } catch {
                result = (error as? FIDOError)?.code ?? FIDO_OK
            }
        }
        #expect(result == FIDO_ERR_TX || result == FIDO_ERR_RX, "\(String(cString: fido_strerr(result)))")
        #expect(ms < 1000)
        #expect(throws: FIDOError.self) { _ = try fixture.open(timeoutMS: 300) }
        try expectStateIntact(fixture, credentials: 1)
    }

    @Test func injectedCTAPErrorIsReportedForTheChosenCommandOnly() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let credential = try device.makeCredential()
        fixture.token.faults = FaultPlan(injectedErrors: [
            CTAPCommand.getAssertion.rawValue: CTAPStatus.pinAuthBlocked.rawValue
        ])
        expectFido(FIDO_ERR_PIN_AUTH_BLOCKED) { try device.getAssertion(allow: [credential.credentialID]) }
        try device.makeCredential()
        #expect(
            fixture.token.summary().credentials.first { $0.credentialID == credential.credentialID }?.signCount == 0)
        try expectStateIntact(fixture, credentials: 2)
    }

    @Test func faultPlanIsNotPersisted() throws {
        let fixture = try TokenFixture()
        fixture.token.faults = FaultPlan(response: .stall)
        try fixture.reload()
        #expect(fixture.token.faults == .none)
        try fixture.open(timeoutMS: 1000).makeCredential()
    }
}
