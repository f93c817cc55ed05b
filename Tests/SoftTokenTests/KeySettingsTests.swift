import CBOR
import CFIDO2
import FIDO
import Foundation
import Secrets
import Synchronization
import Testing

@testable import SoftToken

private func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

/// PIN change, authenticatorConfig and authenticatorReset as a key's owner reaches them: through FIDO's
/// operations over real libfido2.
@Suite struct PINChangeTests {
    @Test func changePINNeedsTheCurrentPINAndThenOnlyTheNewOneWorks() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_INVALID) { try device.changePIN(from: secret("9999"), to: secret("5678")) }
        try device.changePIN(from: secret("1234"), to: secret("5678"))
        try device.makeCredential(pin: "5678")
        expectFido(FIDO_ERR_PIN_INVALID) { try device.makeCredential(pin: "1234") }
    }

    @Test func aNewPINShorterThanTheMinimumIsRefused() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_POLICY_VIOLATION) { try device.changePIN(from: secret("1234"), to: secret("12")) }
        try device.makeCredential(pin: "1234")
    }
}

@Suite struct AuthenticatorConfigTests {
    @Test func getInfoOffersConfigOnACTAP21KeyOnly() throws {
        let fixture = try TokenFixture()
        let info = try fixture.open().info
        #expect(info.options["authnrCfg"] == true && info.options["setMinPINLength"] == true)
        #expect(info.options["alwaysUv"] == false)
        let old = try TokenFixture(try #require(SoftTokenProfile.named("yubikey5-pre")).configuration)
        let device = try old.open()
        #expect(!device.supportsConfig && device.info.options["alwaysUv"] == nil)
        expectFido(FIDO_ERR_INVALID_COMMAND) { try device.setAlwaysUV(true, pin: nil) }
    }

    @Test func alwaysUVTurnsOnAndOffAndTheKeySaysSo() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        #expect(try device.setAlwaysUV(true, pin: secret("1234")))
        #expect(try device.readInfo().alwaysUV)
        #expect(try !device.setAlwaysUV(true, pin: secret("1234")))  // already on: nothing sent
        try fixture.reload()
        let reopened = try fixture.open()
        #expect(reopened.info.alwaysUV && reopened.info.options["makeCredUvNotRqd"] == false)
        #expect(try reopened.setAlwaysUV(false, pin: secret("1234")))
        #expect(try !reopened.readInfo().alwaysUV)
    }

    @Test func configOnAKeyWithAPINNeedsTheRightPIN() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_REQUIRED) { try device.setAlwaysUV(true, pin: nil) }
        expectFido(FIDO_ERR_PIN_INVALID) { try device.setAlwaysUV(true, pin: secret("0000")) }
        #expect(try !device.readInfo().alwaysUV)
    }

    @Test func theMinimumPINLengthRisesButNeverFalls() throws {
        let fixture = try TokenFixture(pin: "123456")
        let device = try fixture.open()
        try device.setMinimumPINLength(6, pin: secret("123456"))
        #expect(try device.readInfo().minPINLength == 6)
        #expect(try !device.readInfo().forcePINChange)  // the PIN is long enough
        expectFido(FIDO_ERR_PIN_POLICY_VIOLATION) { try device.setMinimumPINLength(5, pin: secret("123456")) }
        expectFido(FIDO_ERR_PIN_POLICY_VIOLATION) {
            try device.changePIN(from: secret("123456"), to: secret("12345"))
        }
    }

    @Test func aMinimumAboveThePINForcesAChangeAndThePINIsRefusedUntilThen() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        try device.setMinimumPINLength(8, pin: secret("1234"))
        #expect(try device.readInfo().forcePINChange)
        expectFido(FIDO_ERR_PIN_POLICY_VIOLATION) { try device.makeCredential(pin: "1234") }
        try device.changePIN(from: secret("1234"), to: secret("12345678"))
        #expect(try !device.readInfo().forcePINChange)
        try device.makeCredential(pin: "12345678")
    }

    @Test func aForcedChangeRefusesTheSamePINAgain() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        try device.forcePINChange(pin: secret("1234"))
        #expect(try device.readInfo().forcePINChange)
        expectFido(FIDO_ERR_PIN_POLICY_VIOLATION) { try device.changePIN(from: secret("1234"), to: secret("1234")) }
        try device.changePIN(from: secret("1234"), to: secret("4321"))
        #expect(try !device.readInfo().forcePINChange)
    }

    @Test func sitesAllowedToReadTheMinimumGetItAtRegistration() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        try device.allowMinimumPINLength(to: ["example.com"], pin: secret("1234"))
        try fixture.reload()
        #expect(fixture.token.minPINLengthRPIDs == ["example.com"])
    }

    @Test func resetBringsTheMakersSettingsBack() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        try device.setAlwaysUV(true, pin: secret("1234"))
        try device.setMinimumPINLength(6, pin: secret("1234"))
        try device.reset()
        let info = try device.readInfo()
        #expect(!info.alwaysUV && info.minPINLength == 4 && !info.forcePINChange && !info.hasClientPIN)
    }
}

@Suite struct ResetWindowTests {
    @Test func resetIsRefusedTenSecondsAfterPluggingIn() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        fixture.token.clock = { .now + .seconds(11) }
        expectFido(FIDO_ERR_NOT_ALLOWED) { try device.reset() }
        #expect(fixture.token.summary().pinSet)
        // Unplugged and plugged in again: the window opens anew.
        fixture.token.powerCycle()
        try fixture.open().reset()
        #expect(!fixture.token.summary().pinSet)
    }

    @Test func theWindowIsMeasuredWhenTheResetArrivesNotAfterTheTouch() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 200)), pin: "1234")
        let device = try fixture.open()
        // The first reading (the reset arriving) is 5 s after plugging in, every later one (after the touch) 13 s.
        let readings = Mutex(0)
        let pluggedIn = ContinuousClock.now
        fixture.token.clock = {
            readings.withLock { count in
                count += 1
                return pluggedIn + (count == 1 ? .seconds(5) : .seconds(13))
            }
        }
        try device.reset()
        #expect(!fixture.token.summary().pinSet)
        #expect(readings.withLock { $0 } == 1)
    }

    @Test func selectionWaitsForATouch() throws {
        let denied = try TokenFixture(SoftTokenConfiguration(presence: .deny))
        #expect(try RawCTAP2Client(denied.devicePath).send(.selection, .map([])).status == 0x27)
        let fixture = try TokenFixture()
        #expect(try RawCTAP2Client(fixture.devicePath).send(.selection, .map([])).status == 0)
    }
}
