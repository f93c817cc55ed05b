import CBOR
import CFIDO2
import Cryptography
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

        let a1 = try device.getAssertion(allow: [first.id])
        #expect(a1.verify(publicKey: first.publicKey) == FIDO_OK)
        #expect(a1.signCount() == 1)
        #expect(a1.credentialID() == first.id)
        let a2 = try device.getAssertion(allow: [first.id])
        #expect(a2.signCount() == 2)
        let a3 = try device.getAssertion(allow: [second.id])
        #expect(a3.signCount() == 1, "each credential has its own counter")
        #expect(a3.verify(publicKey: first.publicKey) != FIDO_OK, "signed by the other credential's key")
        #expect(a3.verify(publicKey: second.publicKey) == FIDO_OK)
    }

    @Test func edDSAAssertionVerifiesWithEddsaPublicKey() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.algorithm = COSE_EDDSA
        let credential = try device.makeCredential(request)
        let assertion = try device.getAssertion(allow: [credential.id])
        #expect(assertion.verify(algorithm: COSE_EDDSA, publicKey: credential.publicKey) == FIDO_OK)
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
        #expect(assertion.userID(0) == Array("user-2".utf8))
        #expect(assertion.userID(1) == Array("user-1".utf8))
        #expect(assertion.verify(0, publicKey: bob.publicKey) == FIDO_OK)
        #expect(assertion.verify(1, publicKey: alice.publicKey) == FIDO_OK)
        #expect(assertion.userName(0) == nil, "no user-identifiable information without UV")
    }

    @Test func discoverableAssertionWithPINIncludesUserNames() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        try device.makeCredential(request, pin: "1234")
        let assertion = try device.getAssertion(pin: "1234")
        #expect(assertion.userName() == "alice")
        #expect(assertion.flags() & 0x04 != 0, "UV flag")
    }

    @Test func noCredentialsForAnUnknownRPOrID() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let credential = try device.makeCredential()
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion() }
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(rpID: "other.example", allow: [credential.id]) }
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: [Array(repeating: 1, count: 64)]) }
    }

    @Test func silentAssertionHasNoUserPresenceFlag() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .deny))
        try fixture.token.setPresence(.automatic)
        let device = try fixture.open()
        let credential = try device.makeCredential()
        try fixture.token.setPresence(.deny)
        let assertion = try device.getAssertion(allow: [credential.id], up: FIDO_OPT_FALSE)
        #expect(assertion.flags() & 0x01 == 0)
        #expect(assertion.verify(publicKey: credential.publicKey) == FIDO_OK)
    }
}
