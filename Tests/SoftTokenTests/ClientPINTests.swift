import CFIDO2
import Foundation
import Secrets
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct ClientPINTests {
    static let protocols: [[Int]] = [[2, 1], [1]]

    @Test(arguments: protocols) func setPINThenPINGivesUserVerifiedCredentials(protocols: [Int]) throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(pinUvAuthProtocols: protocols))
        let device = try fixture.open()
        #expect(!fido_dev_has_pin(device.handle))
        #expect(fidoStatus { try device.setPIN(SecretBytes(Array("1234".utf8))) } == FIDO_OK)
        #expect(fido_dev_has_pin(device.handle))
        #expect((try device.pinRetries()) == 8)
        #expect(fixture.token.summary().pinSet)

        var request = CredentialRequest()
        request.residentKey = true
        let credential = try device.makeCredential(request, pin: "1234")
        #expect(credential.flags & 0x04 != 0, "UV flag")
        let assertion = try device.getAssertion(pin: "1234")
        #expect(assertion[0].flags & 0x04 != 0)
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
    }

    @Test(arguments: protocols) func wrongPINCountsDownAndRightPINRestoresRetries(protocols: [Int]) throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(pinUvAuthProtocols: protocols), pin: "1234")
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_INVALID) { try device.makeCredential(pin: "9999") }
        #expect((try device.pinRetries()) == 7)
        expectFido(FIDO_ERR_PIN_INVALID) { try device.getAssertion(pin: "0000") }
        #expect((try device.pinRetries()) == 6)
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().pinRetries == 6, "retries are persisted")
        try device.makeCredential(pin: "1234")
        #expect((try device.pinRetries()) == 8)
    }

    @Test func threeWrongPINsBlockUntilPowerCycle() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        expectFido(FIDO_ERR_PIN_INVALID) { try device.makeCredential(pin: "1111") }
        expectFido(FIDO_ERR_PIN_INVALID) { try device.makeCredential(pin: "2222") }
        expectFido(FIDO_ERR_PIN_AUTH_BLOCKED) { try device.makeCredential(pin: "3333") }
        expectFido(FIDO_ERR_PIN_AUTH_BLOCKED) { try device.makeCredential(pin: "1234") }
        expectFido(FIDO_ERR_PIN_AUTH_BLOCKED) { try fixture.open().makeCredential(pin: "1234") }
        #expect((try device.pinRetries()) == 5, "the blocked attempt did not cost a retry")
        try fixture.reload()
        try fixture.open().makeCredential(pin: "1234")
    }

    @Test func eightWrongPINsBlockThePINForGood() throws {
        let fixture = try TokenFixture(pin: "1234")
        for round in 0..<3 {
            let device = try fixture.open()
            for attempt in 0..<3 where round * 3 + attempt < 8 {
                let expected =
                    round * 3 + attempt == 7
                    ? FIDO_ERR_PIN_BLOCKED : (attempt == 2 ? FIDO_ERR_PIN_AUTH_BLOCKED : FIDO_ERR_PIN_INVALID)
                expectFido(expected) { try device.makeCredential(pin: "0000") }
            }
            fixture.token.powerCycle()
        }
        let device = try fixture.open()
        #expect((try device.pinRetries()) == 0)
        expectFido(FIDO_ERR_PIN_BLOCKED) { try device.makeCredential(pin: "1234") }
    }

    @Test(arguments: protocols) func changePINReplacesTheOldPIN(protocols: [Int]) throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(pinUvAuthProtocols: protocols), pin: "1234")
        let device = try fixture.open()
        #expect(fido_dev_set_pin(device.handle, "56789", "0000") == FIDO_ERR_PIN_INVALID)
        #expect(fido_dev_set_pin(device.handle, "56789", "1234") == FIDO_OK)
        expectFido(FIDO_ERR_PIN_INVALID) { try device.makeCredential(pin: "1234") }
        try device.makeCredential(pin: "56789")
    }

    /// Without the pinUvAuthToken option libfido2 falls back to CTAP 2.0's getPINToken (subcommand 5).
    @Test(arguments: protocols) func legacyGetPINTokenWorksWhenPermissionsAreNotAdvertised(protocols: [Int]) throws {
        var configuration = SoftTokenConfiguration(pinUvAuthProtocols: protocols)
        configuration.pinUvAuthTokenPermissions = false
        let fixture = try TokenFixture(configuration, pin: "1234")
        let device = try fixture.open()
        #expect(!fido_dev_supports_permissions(device.handle))
        var request = CredentialRequest()
        request.residentKey = true
        let credential = try device.makeCredential(request, pin: "1234")
        #expect(credential.flags & 0x04 != 0)
        let assertion = try device.getAssertion(pin: "1234")
        #expect(assertion[0].flags & 0x04 != 0)
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
        expectFido(FIDO_ERR_PIN_INVALID) { try device.getAssertion(pin: "4321") }
    }

    @Test func stateFileWithoutNewerConfigurationFieldsStillLoads() throws {
        let fixture = try TokenFixture()
        var text = try String(contentsOfFile: fixture.stateFile, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"pinUvAuthTokenPermissions\" : true,", with: "")
        #expect(!text.contains("pinUvAuthTokenPermissions"))
        try text.write(toFile: fixture.stateFile, atomically: true, encoding: .utf8)
        #expect(try SoftToken(stateFile: fixture.stateFile).configuration.pinUvAuthTokenPermissions)
    }

    @Test func setPINTwiceIsNotAllowed() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        #expect(fidoStatus { try device.setPIN(SecretBytes(Array("5678".utf8))) } == FIDO_ERR_NOT_ALLOWED)
    }

    @Test func pinShorterThanTheMinimumViolatesPolicy() throws {
        var configuration = SoftTokenConfiguration()
        configuration.minPINLength = 6
        let fixture = try TokenFixture(configuration)
        let device = try fixture.open()
        #expect(fidoStatus { try device.setPIN(SecretBytes(Array("12345".utf8))) } == FIDO_ERR_PIN_POLICY_VIOLATION)
        #expect(!fixture.token.summary().pinSet)
    }

    @Test func pinOperationsWithoutAPINSayPINNotSet() throws {
        let fixture = try TokenFixture()
        expectFido(FIDO_ERR_PIN_NOT_SET) { try fixture.open().makeCredential(pin: "1234") }
    }

    @Test func createRefusesAPINShorterThanTheMinimum() {
        #expect(throws: SoftTokenError.self) {
            _ = try SoftToken.create(at: "/tmp/softtoken-never-\(getpid())", configuration: .init(), pin: "12")
        }
    }
}

@Suite struct BuiltInUVTests {
    @Test func builtInUVGivesAUserVerifiedCredentialWithoutAPIN() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(builtInUV: true))
        let device = try fixture.open()
        #expect(fido_dev_has_uv(device.handle))
        var request = CredentialRequest()
        request.residentKey = true
        request.builtInUV = true
        let credential = try device.makeCredential(request)
        #expect(credential.flags & 0x04 != 0)
        let assertion = try device.getAssertion(uv: true)
        #expect(assertion[0].flags & 0x04 != 0)
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
    }

    @Test func failingUVCountsDownToUVBlocked() throws {
        var configuration = SoftTokenConfiguration(builtInUV: true)
        configuration.uvOutcome = .fail
        let fixture = try TokenFixture(configuration)
        let device = try fixture.open()
        var request = CredentialRequest()
        request.builtInUV = true
        var retries: Int32 = -1
        #expect(fido_dev_get_uv_retry_count(device.handle, &retries) == FIDO_OK)
        #expect(retries == 8)
        for _ in 0..<7 { expectFido(FIDO_ERR_UV_INVALID) { try device.makeCredential(request) } }
        #expect(fido_dev_get_uv_retry_count(device.handle, &retries) == FIDO_OK)
        #expect(retries == 1)
        expectFido(FIDO_ERR_UV_BLOCKED) { try device.makeCredential(request) }
        expectFido(FIDO_ERR_UV_BLOCKED) { try device.makeCredential(request) }
        try fixture.token.setUVOutcome(.succeed)
        expectFido(FIDO_ERR_UV_BLOCKED) { try device.makeCredential(request) }
    }
}
