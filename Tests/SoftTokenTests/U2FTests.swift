import CFIDO2
import Cryptography
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

/// U2F (CTAP1) mode, driven through libfido2's real U2F code path (its fallback for a key whose CTAPHID INIT
/// lacks the CBOR capability).
@Suite struct U2FTests {
    static var u2fOnly: SoftTokenConfiguration {
        var configuration = SoftTokenConfiguration()
        configuration.ctap2 = false
        configuration.u2f = true
        return configuration
    }

    @Test func libfido2SeesAU2FOnlyKey() throws {
        let fixture = try TokenFixture(Self.u2fOnly)
        let device = try fixture.open()
        #expect(!fido_dev_is_fido2(device.handle))
        let raw = try RawChannel(fixture.devicePath)
        raw.write(RawChannel.cid(0xFFFF_FFFF) + [0x86, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8])
        let reply = try #require(raw.read())
        #expect(reply[23] == 0x01, "WINK only: no CBOR, and NMSG clear")
    }

    @Test func registersAndSignsWithFidoU2FAttestation() throws {
        let fixture = try TokenFixture(Self.u2fOnly)
        let device = try fixture.open()
        let credential = try device.makeCredential()
        #expect(credential.format == "fido-u2f")
        #expect(libfido2Verify(credential) == FIDO_OK, "the attestation signature over the U2F registration data")
        #expect(credential.x5c.count > 100)
        #expect(credential.credentialID.count <= 255)
        let assertion = try device.getAssertion(allow: [credential.credentialID])
        #expect(libfido2Verify(assertion[0], publicKey: credential.publicKey) == FIDO_OK)
        #expect(assertion[0].signCount == 1)
        #expect(assertion[0].flags & 0x01 == 0x01, "user present")
        let second = try device.getAssertion(allow: [Array(repeating: 7, count: 40), credential.credentialID])
        #expect(second[0].signCount == 2)
        #expect(second[0].credentialID == credential.credentialID)
    }

    @Test func refusesWhatU2FCannotDo() throws {
        let fixture = try TokenFixture(Self.u2fOnly)
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        expectFido(FIDO_ERR_UNSUPPORTED_OPTION) { try device.makeCredential(request) }
        expectFido(FIDO_ERR_UNSUPPORTED_OPTION) { try device.getAssertion(allow: []) }
        let credential = try device.makeCredential()
        // Made for example.com: under another application parameter the key handle is not the key's.
        expectFido(FIDO_ERR_NO_CREDENTIALS) {
            try device.getAssertion(rpID: "example.org", allow: [credential.credentialID])
        }
    }

    @Test func checkOnlyFindsAKeyHandleWithoutATouch() throws {
        var configuration = Self.u2fOnly
        configuration.presence = .deny
        let fixture = try TokenFixture(configuration)
        try fixture.token.setPresence(.automatic)
        let device = try fixture.open()
        let credential = try device.makeCredential()
        try fixture.token.setPresence(.deny)
        // up=false: libfido2 sends only the check-only authenticate (0x07) and reports the handle as known.
        expectFido(FIDO_ERR_USER_PRESENCE_REQUIRED) {
            try device.getAssertion(allow: [credential.credentialID], up: false)
        }
        expectFido(FIDO_ERR_NO_CREDENTIALS) {
            try device.getAssertion(allow: [Array(repeating: 1, count: 64)], up: false)
        }
    }

    @Test func answersTestOfUserPresenceRequiredUntilTouched() throws {
        var configuration = Self.u2fOnly
        configuration.presence = .delay(milliseconds: 400)
        let fixture = try TokenFixture(configuration)
        let device = try fixture.open()
        var credential: MadeCredential?
        let ms = elapsedMS { credential = try? device.makeCredential() }
        #expect(credential != nil)
        #expect(ms >= 400, "libfido2 repeats the register while the key answers 0x6985")
        let id = try #require(credential).credentialID
        let signMS = elapsedMS { #expect((try? device.getAssertion(allow: [id])) != nil) }
        #expect(signMS >= 400, "a signature needs a touch of its own")
    }

    @Test func anExcludedKeyHandleNeedsATouchThenFails() throws {
        let fixture = try TokenFixture(Self.u2fOnly)
        let device = try fixture.open()
        let credential = try device.makeCredential()
        var request = CredentialRequest()
        request.excludeList = [credential.credentialID]
        expectFido(FIDO_ERR_CREDENTIAL_EXCLUDED) { try device.makeCredential(request) }
    }

    @Test func aKeyWithBothInterfacesSignsOverCTAP2WithAU2FCredential() throws {
        var configuration = SoftTokenConfiguration()
        configuration.u2f = true
        let fixture = try TokenFixture(configuration)
        let device = try fixture.open()
        #expect(fido_dev_is_fido2(device.handle))
        // libfido2 speaks CTAP2 to this key, so register as U2F with a raw APDU through the io hooks.
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        let application = Digest.sha256(Array("https://example.com/appid.json".utf8))
        let apdu: [UInt8] = [0, 0x01, 0, 0, 0, 0, 64] + Array(repeating: 0xAB, count: 32) + application + [0, 0]
        raw.write(RawChannel.cid(channel) + [0x83, 0, UInt8(apdu.count)] + apdu[0..<57])
        raw.write(RawChannel.cid(channel) + [0] + apdu[57...])
        let head = try #require(raw.read())
        #expect(head[4] == 0x83)
        let length = Int(head[5]) << 8 | Int(head[6])
        var response = Array(head[7..<64])
        var sequence: UInt8 = 0
        while response.count < length {
            let next = try #require(raw.read())
            #expect(next[4] == sequence)
            sequence += 1
            response += next[5..<64]
        }
        response = Array(response.prefix(length))
        #expect(Array(response.suffix(2)) == [0x90, 0x00])
        #expect(response[0] == 0x05)
        let keyHandle = Array(response[67..<(67 + Int(response[66]))])
        let publicKey = Array(response[2..<66])
        let assertion = try device.getAssertion(rpID: "https://example.com/appid.json", allow: [keyHandle])
        #expect(libfido2Verify(assertion[0], rpID: "https://example.com/appid.json", publicKey: publicKey) == FIDO_OK)
    }

    @Test func anyBytesGetAStatusWordNeverACrash() throws {
        let fixture = try TokenFixture(Self.u2fOnly)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var message = (0..<Int.random(in: 0...80, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            // Keep most inputs on the paths that parse further: CLA 0, a known instruction.
            if message.count >= 2, Bool.random(using: &generator) {
                message[0] = 0
                message[1] = UInt8.random(in: 1...3, using: &generator)
            }
            let answer = fixture.token.locked { fixture.token.executeU2F(message) }
            #expect(answer.count >= 2)
        }
    }

    @Test func versionAndUnknownInstructions() throws {
        #expect(U2F.Command([0, 3, 0, 0]) == U2F.Command([0, 3, 0, 0, 0, 0, 0]))
        let fixture = try TokenFixture(Self.u2fOnly)
        let version = fixture.token.locked { fixture.token.executeU2F([0, 0x03, 0, 0, 0, 0, 0]) }
        #expect(version == Array("U2F_V2".utf8) + [0x90, 0x00])
        #expect(fixture.token.locked { fixture.token.executeU2F([0, 0x40, 0, 0]) } == [0x6D, 0x00])
        #expect(fixture.token.locked { fixture.token.executeU2F([0x80, 0x01, 0, 0]) } == [0x6E, 0x00])
        #expect(fixture.token.locked { fixture.token.executeU2F([0, 0x01, 0, 0, 0, 0, 10, 1]) } == [0x67, 0x00])
        #expect(fixture.token.locked { fixture.token.executeU2F([0, 0x01]) } == [0x67, 0x00])
        // Truncated extended lengths and authenticate data shorter than its key handle length say.
        #expect(fixture.token.locked { fixture.token.executeU2F([0, 0x02, 3, 0, 0, 1]) } == [0x67, 0x00])
        #expect(
            fixture.token.locked {
                fixture.token.executeU2F([0, 0x02, 3, 0, 0, 0, 65] + [UInt8](repeating: 0, count: 64) + [9])
            } == [0x67, 0x00])
    }
}
