import CBOR
import CFIDO2
import Cryptography
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct MakeCredentialTests {
    @Test func es256SelfAttestationIsAcceptedByFidoCredVerifySelf() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(attestation: .selfAttestation))
        let credential = try fixture.open().makeCredential()
        #expect(libfido2Verify(credential, selfAttested: true) == FIDO_OK)
        #expect(credential.x5c.isEmpty)
        #expect(credential.publicKey.count == 64)
        #expect(credential.flags & 0x01 != 0, "UP flag")
        #expect(credential.flags & 0x04 == 0, "no UV without PIN")
        #expect(credential.format == "packed")
    }

    @Test(arguments: [COSE_ES256, COSE_EDDSA]) func certificateAttestationIsAcceptedByFidoCredVerify(algorithm: Int32)
        throws
    {
        let fixture = try TokenFixture(SoftTokenConfiguration(attestation: .certificate))
        var request = CredentialRequest()
        request.algorithm = Int(algorithm)
        let credential = try fixture.open().makeCredential(request)
        #expect(libfido2Verify(credential, request) == FIDO_OK)
        let certificate = credential.x5c
        #expect(certificate.first == 0x30, "DER SEQUENCE")
        // FIDO packed requirements: OU "Authenticator Attestation" and the AAGUID extension (OCTET STRING in OCTET STRING).
        #expect(certificate.firstRange(of: Array("Authenticator Attestation".utf8)) != nil)
        #expect(certificate.firstRange(of: [0x04, 0x12, 0x04, 0x10] + SoftTokenConfiguration.defaultAAGUID) != nil)
        #expect(credential.aaguid == SoftTokenConfiguration.defaultAAGUID)
    }

    @Test func edDSACredentialsAreMadeAndSelfAttested() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(attestation: .selfAttestation))
        var request = CredentialRequest()
        request.algorithm = Int(COSE_EDDSA)
        let credential = try fixture.open().makeCredential(request)
        #expect(libfido2Verify(credential, selfAttested: true) == FIDO_OK)
        #expect(credential.publicKey.count == 32)
    }

    @Test func unsupportedAlgorithmIsRefused() throws {
        let fixture = try TokenFixture()
        var request = CredentialRequest()
        request.algorithm = Int(COSE_RS256)
        expectFido(FIDO_ERR_UNSUPPORTED_ALGORITHM) { try fixture.open().makeCredential(request) }
    }

    @Test func excludedCredentialIsReportedAfterPresence() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let existing = try device.makeCredential()
        var request = CredentialRequest()
        request.excludeList = [Array(repeating: 7, count: 40), existing.credentialID]
        expectFido(FIDO_ERR_CREDENTIAL_EXCLUDED) { try device.makeCredential(request) }
        #expect(fixture.token.summary().credentials.count == 1)
    }

    @Test func excludeListOfAnotherRPDoesNotExclude() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let existing = try device.makeCredential()
        var request = CredentialRequest()
        request.rpID = "other.example"
        request.excludeList = [existing.credentialID]
        try device.makeCredential(request)
    }

    @Test func excludedCredentialWithDeniedPresenceIsOperationDenied() throws {
        let fixture = try TokenFixture()
        let existing = try fixture.open().makeCredential()
        try fixture.token.setPresence(.deny)
        var request = CredentialRequest()
        request.excludeList = [existing.credentialID]
        expectFido(FIDO_ERR_OPERATION_DENIED) { try fixture.open().makeCredential(request) }
    }

    @Test func residentKeyIsRefusedWhenTheTokenHasNoResidentKeys() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(residentKeys: false))
        var request = CredentialRequest()
        request.residentKey = true
        expectFido(FIDO_ERR_UNSUPPORTED_OPTION) { try fixture.open().makeCredential(request) }
    }

    @Test func residentCredentialReplacesTheSameUsersOldOne() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        let old = try device.makeCredential(request)
        let new = try device.makeCredential(request)
        let discoverable = fixture.token.summary().credentials.filter(\.discoverable)
        #expect(discoverable.map(\.credentialID) == [new.credentialID])
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: [old.credentialID]) }
    }

    @Test func discoverableCredentialNeedsPINOnAPINProtectedToken() throws {
        let fixture = try TokenFixture(pin: "1234")
        var request = CredentialRequest()
        request.residentKey = true
        expectFido(FIDO_ERR_PIN_REQUIRED) { try fixture.open().makeCredential(request) }
        // makeCredUvNotRqd: a non-discoverable one needs no PIN.
        try fixture.open().makeCredential()
    }

    @Test func nonResidentCredentialIDWrapsTheKeyAndIsNotStoredWithIt() throws {
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        let summary = fixture.token.summary()
        #expect(summary.credentials.count == 1)
        #expect(summary.credentials[0].discoverable == false)
        #expect(summary.credentials[0].credentialID == credential.credentialID)
        let file = try String(contentsOfFile: fixture.stateFile, encoding: .utf8)
        #expect(!file.contains("privateKey"))
        let rpIDHash = Digest.sha256(Array("example.com".utf8))
        let secrets = try #require(
            CredentialID.open(credential.credentialID, rpIDHash: rpIDHash, key: Array(fixture.token.state.wrappingKey)))
        let key = try SigningKey.load(pkcs8DER: secrets.privateKey)
        #expect(Array(key.publicKeyBytes.dropFirst()) == credential.publicKey)
        #expect(
            CredentialID.open(
                credential.credentialID, rpIDHash: Digest.sha256(Array("evil.example".utf8)),
                key: Array(fixture.token.state.wrappingKey)) == nil)
    }

    @Test func touchProbeReportsTouchWithoutMakingACredential() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 250)))
        let device = try fixture.open()
        #expect(fido_dev_get_touch_begin(device.handle) == FIDO_OK)
        var touched: Int32 = 0
        var polls = 0
        let started = ContinuousClock.now
        while touched == 0 && polls < 40 {
            #expect(fido_dev_get_touch_status(device.handle, &touched, 50) == FIDO_OK)
            polls += 1
        }
        #expect(touched == 1)
        // A lower bound only: on a loaded machine each poll may take longer than 50 ms.
        #expect(ContinuousClock.now - started >= .milliseconds(200), "the touch comes after the configured delay")
        #expect(fixture.token.summary().credentials.isEmpty)
    }

    @Test func touchProbeCanBeCancelledWithoutATouch() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 10_000)))
        let device = try fixture.open()
        #expect(fido_dev_get_touch_begin(device.handle) == FIDO_OK)
        var touched: Int32 = 0
        #expect(fido_dev_get_touch_status(device.handle, &touched, 100) == FIDO_OK)
        #expect(touched == 0)
        #expect(fido_dev_cancel(device.handle) == FIDO_OK)
        #expect(fido_dev_get_touch_status(device.handle, &touched, 100) == FIDO_ERR_KEEPALIVE_CANCEL)
        #expect(touched == 0)
    }

    @Test func touchProbeOnAPINTokenAlsoReportsTouch() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        #expect(fido_dev_get_touch_begin(device.handle) == FIDO_OK)
        var touched: Int32 = 0
        #expect(fido_dev_get_touch_status(device.handle, &touched, 500) == FIDO_OK)
        #expect(touched == 1)
    }
}
