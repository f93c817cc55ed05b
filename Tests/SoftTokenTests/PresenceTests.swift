import CFIDO2
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct PresenceTests {
    @Test func deniedPresenceIsOperationDenied() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .deny))
        expectFido(FIDO_ERR_OPERATION_DENIED) { try fixture.open().makeCredential() }
        #expect(fixture.token.summary().credentials.isEmpty)
    }

    @Test func delayedPresenceSucceedsAfterTheDelay() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 300)))
        let device = try fixture.open()
        var credential: MadeCredential?
        let ms = elapsedMS { credential = try? device.makeCredential() }
        #expect(credential != nil)
        #expect(ms >= 300)
        #expect(ms < 2000)
    }

    @Test func aSignalledTouchServesOneRequestAndIsTakenByIt() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .onSignal))
        let touchFile = SoftToken.touchFile(for: fixture.stateFile)
        #expect(FileManager.default.createFile(atPath: touchFile, contents: nil))
        let device = try fixture.open(timeoutMS: 5000)
        #expect((try? device.makeCredential()) != nil)
        #expect(!FileManager.default.fileExists(atPath: touchFile))
        // No touch file, no touch: the next request waits until libfido2 gives up.
        device.setTimeout(milliseconds: 400)
        expectFido(FIDO_ERR_RX) { try device.makeCredential() }
        #expect(fixture.token.summary().credentials.count == 1)
    }

    /// With up=true and no credential to sign with, CTAP 2.0's order takes the touch before CTAP2_ERR_NO_CREDENTIALS,
    /// CTAP 2.1's answers at once and leaves the touch (a signalled one, `FILE.touch`) untaken; by default the order
    /// is the one the versions the token reports imply.
    @Test(
        arguments: [
            ("yubikey5", nil, true), ("ctap20", nil, false), ("yubikey5", .afterTouch, false),
            ("ctap20", .atOnce, true),
        ] as [(String, NoCredentialsOrder?, Bool)])
    func noCredentialsComesAfterTheTouchOrAtOnce(profile: String, order: NoCredentialsOrder?, atOnce: Bool) throws {
        var configuration = try #require(SoftTokenProfile.named(profile)).configuration
        configuration.presence = .onSignal
        configuration.noCredentialsOrder = order
        let fixture = try TokenFixture(configuration)
        let touchFile = SoftToken.touchFile(for: fixture.stateFile)
        let device = try fixture.open(timeoutMS: 5000)
        for allow in [[], [Array(repeating: UInt8(1), count: 64)]] {
            #expect(FileManager.default.createFile(atPath: touchFile, contents: nil))
            expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: allow) }
            #expect(FileManager.default.fileExists(atPath: touchFile) == atOnce, "allow list of \(allow.count)")
            // Silent (up=false): "no credentials" at once in either order.
            expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: allow, up: false) }
            #expect(FileManager.default.fileExists(atPath: touchFile) == atOnce)
            try? FileManager.default.removeItem(atPath: touchFile)
        }
    }

    @Test func aKeyAnsweringNoCredentialsAtOnceStillWaitsForTheTouchOfOneItHolds() throws {
        var configuration = SoftTokenConfiguration(presence: .onSignal)
        configuration.noCredentialsOrder = .atOnce
        let fixture = try TokenFixture(configuration)
        let touchFile = SoftToken.touchFile(for: fixture.stateFile)
        let device = try fixture.open(timeoutMS: 5000)
        #expect(FileManager.default.createFile(atPath: touchFile, contents: nil))
        let credential = try device.makeCredential()
        #expect(FileManager.default.createFile(atPath: touchFile, contents: nil))
        let assertion = try device.getAssertion(allow: [Array(repeating: 1, count: 64), credential.credentialID])
        #expect(!FileManager.default.fileExists(atPath: touchFile))
        #expect(assertion[0].credentialID == credential.credentialID)
    }

    @Test func waitingForTouchTimesOutWithFidoDevSetTimeout() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 10_000)))
        let device = try fixture.open(timeoutMS: 400)
        let ms = elapsedMS { expectFido(FIDO_ERR_RX) { try device.makeCredential() } }
        #expect(ms >= 350)
        #expect(ms < 2000)
        // A new device handle is not blocked by the abandoned request once the old one is closed.
        try fixture.token.setPresence(.automatic)
        _ = consume device
        try fixture.open(timeoutMS: 2000).makeCredential()
    }

    @Test func cancelFromAnotherThreadEndsAWaitingMakeCredential() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 10_000)))
        let device = try fixture.open(timeoutMS: 5000)
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            fido_dev_cancel(device.handle)
        }
        canceller.start()
        let ms = elapsedMS { expectFido(FIDO_ERR_KEEPALIVE_CANCEL) { try device.makeCredential() } }
        #expect(ms >= 250)
        #expect(ms < 3000)
        #expect(fixture.token.summary().credentials.isEmpty)
        // The same device handle keeps working afterwards.
        try fixture.token.setPresence(.automatic)
        try device.makeCredential()
    }

    @Test func cancelEndsAWaitingGetAssertionToo() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open(timeoutMS: 5000)
        let credential = try device.makeCredential()
        try fixture.token.setPresence(.delay(milliseconds: 10_000))
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            fido_dev_cancel(device.handle)
        }
        canceller.start()
        expectFido(FIDO_ERR_KEEPALIVE_CANCEL) { try device.getAssertion(allow: [credential.credentialID]) }
    }

    @Test func anotherChannelIsBusyWhileOneWaitsForTouch() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 1500)))
        let waiting = try fixture.open(timeoutMS: 5000)
        let other = try fixture.open(timeoutMS: 1000)
        let background = Thread { _ = try? waiting.makeCredential() }
        background.start()
        Thread.sleep(forTimeInterval: 0.2)
        // libfido2 turns a CTAPHID_ERROR frame (here ERR_CHANNEL_BUSY) into FIDO_ERR_RX — at once, not by timeout.
        let ms = elapsedMS { expectFido(FIDO_ERR_RX) { try other.getAssertion() } }
        #expect(ms < 900)
        fido_dev_cancel(waiting.handle)
    }
}

@Suite struct ResetTests {
    @Test func resetForgetsCredentialsAndPIN() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        let credential = try device.makeCredential(pin: "1234")
        #expect(fido_dev_reset(device.handle) == FIDO_OK)
        let summary = fixture.token.summary()
        #expect(!summary.pinSet)
        #expect(summary.credentials.isEmpty)
        let fresh = try fixture.open()
        #expect(!fido_dev_has_pin(fresh.handle))
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try fresh.getAssertion(allow: [credential.credentialID]) }
        #expect((try fresh.pinRetries()) == 8)
    }

    @Test func resetNeedsPresence() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .deny), pin: "1234")
        let device = try fixture.open()
        let result = fido_dev_reset(device.handle)
        #expect(result == FIDO_ERR_OPERATION_DENIED, "\(String(cString: fido_strerr(result)))")
        #expect(fixture.token.summary().pinSet)
    }
}

@Suite struct AbandonedRequestTests {
    @Test func cancelAfterATimeoutDoesNotPoisonTheNextCommand() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open(timeoutMS: 300)
        let credential = try device.makeCredential()
        try fixture.token.setPresence(.delay(milliseconds: 10_000))
        expectFido(FIDO_ERR_RX) { try device.getAssertion(allow: [credential.credentialID]) }
        // The host gives up and cancels after libfido2 already returned: nobody reads the cancel's answer.
        fido_dev_cancel(device.handle)
        try fixture.token.setPresence(.automatic)
        let assertion = try device.getAssertion(allow: [credential.credentialID])
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
    }

    @Test func aDueTouchOnAnAbandonedChannelFreesTheTokenForOthers() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 400)))
        let abandoned = try fixture.open(timeoutMS: 100)
        expectFido(FIDO_ERR_RX) { try abandoned.makeCredential() }
        Thread.sleep(forTimeInterval: 0.4)
        // The first device is still open but nobody reads it; the touch has come, so the token is free again.
        try fixture.open(timeoutMS: 2000).makeCredential()
        #expect(fixture.token.summary().credentials.count == 2)
    }
}
