import CBOR
import CFIDO2
import Cryptography
import FIDO
import Foundation
import Testing

@testable import SoftToken

@Suite struct GetAssertionTests {
    @Test func assertionWithAllowListVerifiesAndCountsPerCredential() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let first = try device.makeCredential()
        var otherUser = CredentialRequest()
        otherUser.userID = Array("user-2".utf8)
        let second = try device.makeCredential(otherUser)

        let a1 = try device.getAssertion(allow: [first.credentialID])
        #expect(libfido2Verify(a1[0], publicKey: first.publicKey) == FIDO_OK)
        #expect(a1[0].signCount == 1)
        #expect(a1[0].credentialID == first.credentialID)
        let a2 = try device.getAssertion(allow: [first.credentialID])
        #expect(a2[0].signCount == 2)
        let a3 = try device.getAssertion(allow: [second.credentialID])
        #expect(a3[0].signCount == 1, "each credential has its own counter")
        #expect(libfido2Verify(a3[0], publicKey: first.publicKey) != FIDO_OK, "signed by the other credential's key")
        #expect(libfido2Verify(a3[0], publicKey: second.publicKey) == FIDO_OK)
    }

    @Test func edDSAAssertionVerifiesWithEddsaPublicKey() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.algorithm = Int(COSE_EDDSA)
        let credential = try device.makeCredential(request)
        let assertion = try device.getAssertion(allow: [credential.credentialID])
        #expect(libfido2Verify(assertion[0], algorithm: COSE_EDDSA, publicKey: credential.publicKey) == FIDO_OK)
    }

    @Test func discoverableCredentialsAreAllReturnedNewestFirstWithUserIDs() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        let alice = try device.makeCredential(request)
        request.userID = Array("user-2".utf8)
        request.userName = "bob"
        let bob = try device.makeCredential(request)
        var elsewhere = request
        elsewhere.rpID = "other.example"
        try device.makeCredential(elsewhere)

        let assertion = try device.getAssertion()
        #expect(assertion.count == 2)
        #expect(assertion[0].userID == Array("user-2".utf8))
        #expect(assertion[1].userID == Array("user-1".utf8))
        #expect(libfido2Verify(assertion[0], publicKey: bob.publicKey) == FIDO_OK)
        #expect(libfido2Verify(assertion[1], publicKey: alice.publicKey) == FIDO_OK)
        #expect(assertion[0].userName == nil, "no user-identifiable information without UV")
    }

    @Test func discoverableAssertionWithPINIncludesUserNames() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        try device.makeCredential(request, pin: "1234")
        let assertion = try device.getAssertion(pin: "1234")
        #expect(assertion[0].userName == "alice")
        #expect(assertion[0].flags & 0x04 != 0, "UV flag")
    }

    @Test func noCredentialsForAnUnknownRPOrID() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let credential = try device.makeCredential()
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion() }
        expectFido(FIDO_ERR_NO_CREDENTIALS) {
            try device.getAssertion(rpID: "other.example", allow: [credential.credentialID])
        }
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: [Array(repeating: 1, count: 64)]) }
    }

    @Test func silentAssertionHasNoUserPresenceFlag() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .deny))
        try fixture.token.setPresence(.automatic)
        let device = try fixture.open()
        let credential = try device.makeCredential()
        try fixture.token.setPresence(.deny)
        let assertion = try device.getAssertion(allow: [credential.credentialID], up: false)
        #expect(assertion[0].flags & 0x01 == 0)
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
    }

    /// CTAP's pre-flight: a silent assertion for ids the key does not hold says so without waiting for a touch.
    @Test func silentAssertionForAnIDItDoesNotHoldIsNoCredentialsWithoutATouch() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .deny))
        let device = try fixture.open()
        expectFido(FIDO_ERR_NO_CREDENTIALS) {
            try device.getAssertion(allow: [Array(repeating: 7, count: 64)], up: false)
        }
    }

    /// CTAP 2.1: a token made by built-in UV carries the user's presence (the finger on the sensor), so the
    /// request it authorises takes no second touch; the request then uses that presence up.
    @Test func oneFingerprintServesTheTokenAndTheAssertion() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(builtInUV: true))
        let credential = try fixture.open().makeCredential()
        try fixture.token.setPresence(.onSignal)
        let touchFile = SoftToken.touchFile(for: fixture.stateFile)
        #expect(FileManager.default.createFile(atPath: touchFile, contents: nil))
        let device = try fixture.open(timeoutMS: 3000)
        let assertion = try device.getAssertion(allow: [credential.credentialID], uv: true)
        #expect(assertion[0].flags & 0x05 == 0x05, "UP and UV from the one fingerprint")
        #expect(!FileManager.default.fileExists(atPath: touchFile))
    }
}
