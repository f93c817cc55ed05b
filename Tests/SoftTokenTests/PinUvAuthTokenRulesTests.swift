import CBOR
import CTAP
import Cryptography
import Foundation
import Testing

@testable import SoftToken

/// pinUvAuthParam refusals of CTAP 2.1 §6.1.2 / §6.2.2 that libfido2 cannot be made to trigger: it always asks
/// for the permissions and RP it is about to use, under one protocol, and computes the MAC itself. Each refusal
/// is paired with the same token used correctly, so the refusal is due to the one rule broken and nothing else.
@Suite struct PinUvAuthTokenRulesTests {
    static let pin = "1234"
    static let mc: UInt8 = 0x01
    static let ga: UInt8 = 0x02
    static let ok = CTAPStatus.ok.rawValue
    static let pinAuthInvalid = CTAPStatus.pinAuthInvalid.rawValue
    let clientDataHash = Digest.sha256(Array("raw client data".utf8))

    /// A PIN-protected token, a raw client on it and a protocol 2 shared secret.
    struct Session {
        let fixture: TokenFixture
        let client: RawCTAP2Client
        let pinProtocol: PlatformPINProtocol2

        init(_ configuration: SoftTokenConfiguration = SoftTokenConfiguration()) throws {
            fixture = try TokenFixture(configuration, pin: PinUvAuthTokenRulesTests.pin)
            client = try RawCTAP2Client(fixture.devicePath)
            pinProtocol = try PlatformPINProtocol2(client)
        }

        /// A pinUvAuthToken with exactly these permissions; the issuing itself must succeed.
        func token(_ permissions: UInt8, rpID: String?) throws -> [UInt8] {
            let (status, token) = try pinProtocol.pinUvAuthToken(
                client, pin: PinUvAuthTokenRulesTests.pin, permissions: permissions, rpID: rpID)
            #expect(status == PinUvAuthTokenRulesTests.ok)
            return try #require(token)
        }

        func makeCredential(
            rpID: String, param: [UInt8], protocolVersion: Int = 2, rk: Bool = false, clientDataHash: [UInt8]
        ) throws -> (status: UInt8, reply: CBOR?) {
            try client.send(
                .makeCredential,
                RawRequest.makeCredential(
                    rpID: rpID, clientDataHash: clientDataHash, param: param, protocolVersion: protocolVersion, rk: rk))
        }

        func pinRetries() throws -> Int? {
            let (status, reply) = try client.send(.clientPIN, .map([(1, 2), (2, 1)]))
            #expect(status == PinUvAuthTokenRulesTests.ok)
            return reply?[int: 3]?.intValue
        }
    }

    func param(_ token: [UInt8]) -> [UInt8] { PlatformPINProtocol2.authenticate(token: token, clientDataHash) }

    /// Positive control: the raw client's protocol 2 (key agreement, KDF, encryption, MAC) is what SoftToken
    /// expects, so the refusals below are refusals of the rule under test, not of a broken client.
    @Test func correctTokenAndParamMakeAUserVerifiedCredential() throws {
        let session = try Session()
        let token = try session.token(Self.mc, rpID: "example.com")
        let (status, reply) = try session.makeCredential(
            rpID: "example.com", param: param(token), clientDataHash: clientDataHash)
        #expect(status == Self.ok)
        let authData = try #require(reply?[int: 2]?.bytesValue)
        #expect(authData[32] & 0x05 == 0x05, "UP and UV flags")
        #expect(session.fixture.token.summary().credentials.map(\.rpID) == ["example.com"])
    }

    /// §6.2.2: "if the pinUvAuthToken does not have the ga permission, return CTAP2_ERR_PIN_AUTH_INVALID".
    @Test func makeCredentialOnlyTokenIsRefusedForGetAssertion() throws {
        let session = try Session()
        let setup = try session.token(Self.mc, rpID: "example.com")
        #expect(
            try session.makeCredential(
                rpID: "example.com", param: param(setup), rk: true, clientDataHash: clientDataHash
            ).status == Self.ok)

        let mcOnly = try session.token(Self.mc, rpID: "example.com")
        let refused = try session.client.send(
            .getAssertion,
            RawRequest.getAssertion(rpID: "example.com", clientDataHash: clientDataHash, param: param(mcOnly)))
        #expect(refused.status == Self.pinAuthInvalid)
        #expect(refused.reply == nil)

        // The same request with a ga token finds the credential: only the missing permission was refused.
        let withGA = try session.token(Self.ga, rpID: "example.com")
        let allowed = try session.client.send(
            .getAssertion,
            RawRequest.getAssertion(rpID: "example.com", clientDataHash: clientDataHash, param: param(withGA)))
        #expect(allowed.status == Self.ok)
    }

    /// §6.1.2: a permissions RP ID that does not match rp.id is CTAP2_ERR_PIN_AUTH_INVALID.
    @Test func tokenBoundToOneRPIsRefusedForAnother() throws {
        let session = try Session()
        let token = try session.token(Self.mc | Self.ga, rpID: "a.example")
        let refused = try session.makeCredential(rpID: "b.example", param: param(token), clientDataHash: clientDataHash)
        #expect(refused.status == Self.pinAuthInvalid)
        #expect(session.fixture.token.summary().credentials.isEmpty)

        // The refusal neither consumed nor rebound the token: it still works for its own RP.
        let allowed = try session.makeCredential(rpID: "a.example", param: param(token), clientDataHash: clientDataHash)
        #expect(allowed.status == Self.ok)
    }

    /// A token issued under protocol 2 is not protocol 1's token (each protocol has its own, §6.5.4), so a
    /// protocol 1 MAC made with it fails verify(): CTAP2_ERR_PIN_AUTH_INVALID. The MAC is what a protocol 1
    /// platform would send, LEFT(HMAC, 16), so only the protocol binding can refuse it.
    @Test func protocol2TokenIsRefusedUnderProtocol1() throws {
        let session = try Session()
        let token = try session.token(Self.mc, rpID: "example.com")
        let protocol1MAC = Array(param(token).prefix(16))
        let refused = try session.makeCredential(
            rpID: "example.com", param: protocol1MAC, protocolVersion: 1, clientDataHash: clientDataHash)
        #expect(refused.status == Self.pinAuthInvalid)

        let allowed = try session.makeCredential(
            rpID: "example.com", param: param(token), clientDataHash: clientDataHash)
        #expect(allowed.status == Self.ok)
    }

    /// §6.1.2 step 2: a pinUvAuthProtocol the token does not support is CTAP1_ERR_INVALID_PARAMETER.
    @Test func protocol1OnATokenWithoutItIsInvalidParameter() throws {
        let session = try Session(SoftTokenConfiguration(pinUvAuthProtocols: [2]))
        let token = try session.token(Self.mc, rpID: "example.com")
        let refused = try session.makeCredential(
            rpID: "example.com", param: Array(param(token).prefix(16)), protocolVersion: 1,
            clientDataHash: clientDataHash)
        #expect(refused.status == CTAPStatus.invalidParameter.rawValue)
    }

    /// A wrong MAC is CTAP2_ERR_PIN_AUTH_INVALID and must not cost a PIN retry or write the state file: it
    /// proves nothing about the PIN, and the token itself stays usable.
    @Test func flippedBitInParamIsRefusedWithoutTouchingState() throws {
        let session = try Session()
        let token = try session.token(Self.mc, rpID: "example.com")
        let stateBefore = try Data(contentsOf: URL(fileURLWithPath: session.fixture.stateFile))
        var corrupted = param(token)
        corrupted[7] ^= 0x10

        let refused = try session.makeCredential(rpID: "example.com", param: corrupted, clientDataHash: clientDataHash)
        #expect(refused.status == Self.pinAuthInvalid)
        #expect(try Data(contentsOf: URL(fileURLWithPath: session.fixture.stateFile)) == stateBefore)
        #expect(try session.pinRetries() == 8)
        #expect(session.fixture.token.summary().pinRetries == 8)

        let allowed = try session.makeCredential(
            rpID: "example.com", param: param(token), clientDataHash: clientDataHash)
        #expect(allowed.status == Self.ok)
    }
}
