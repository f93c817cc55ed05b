import CBOR
import CFIDO2
import CTAP
import Cryptography
import Foundation
import Secrets
import Testing

@testable import FIDO
@testable import SoftToken

/// authenticatorCredentialManagement (CTAP 2.1 §6.8) as libfido2's fido_credman_* API drives it, plus the
/// pinUvAuthToken rules libfido2 cannot be made to break (it always asks for `cm` and signs correctly).
@Suite struct CredentialManagementTests {
    static let pin = "1234"
    static let secretPIN = SecretBytes(Array("1234".utf8))

    /// Two passkeys at example.com, one at other.example (made with credProtect and largeBlobKey), one
    /// non-discoverable credential that management never lists.
    func populated() throws -> (TokenFixture, Device, [MadeCredential]) {
        let fixture = try TokenFixture(pin: Self.pin)
        let device = try fixture.open()
        var made: [MadeCredential] = []
        for (rpID, user) in [("example.com", "alice"), ("example.com", "bob"), ("other.example", "carol")] {
            var request = CredentialRequest(userID: Array(user.utf8), residentKey: true)
            request.rpID = rpID
            request.userName = user
            if user == "carol" {
                request.extensions.credentialProtection = Int(FIDO_CRED_PROT_UV_REQUIRED)
                request.extensions.largeBlobKey = true
            }
            made.append(try device.makeCredential(request, pin: Self.pin))
        }
        _ = try device.makeCredential(CredentialRequest(userID: Array("dave".utf8)), pin: Self.pin)
        return (fixture, device, made)
    }

    @Test func getInfoAdvertisesCredMgmtAndFreeSlots() throws {
        let fixture = try TokenFixture(pin: Self.pin)
        let device = try fixture.open()
        #expect(device.info.options["credMgmt"] == true)
        #expect(device.supportsCredentialManagement)
        let info = fixture.token.locked { fixture.token.getInfo() }
        #expect(info[int: 20]?.intValue == SoftTokenConfiguration().discoverableCredentialSlots)
    }

    @Test(arguments: ["ctap20", "no-rk"]) func aCTAP20ProfileHasNoCredentialManagement(profile: String) throws {
        let configuration = try #require(SoftTokenProfile.named(profile)).configuration
        let fixture = try TokenFixture(configuration, pin: Self.pin)
        let device = try fixture.open()
        #expect(device.info.options["credMgmt"] == nil)
        #expect(!device.supportsCredentialManagement)
        let request: [UInt8] = [CTAPCommand.credentialManagement.rawValue] + CBOR.map([(1, 1)]).encode()
        let outcome = fixture.token.locked { fixture.token.execute(request, userTouched: false) }
        #expect(outcome == .response([CTAPStatus.invalidCommand.rawValue]))
    }

    /// YubiKey 5 firmware 5.2–5.6: only the 2.1-PRE command, reached with a permission-less getPINToken token.
    @Test func aPreviewProfileListsAndDeletesButCannotRename() throws {
        let configuration = try #require(SoftTokenProfile.named("yubikey5-pre")).configuration
        let fixture = try TokenFixture(configuration, pin: Self.pin)
        let device = try fixture.open()
        #expect(device.info.versions.contains("FIDO_2_1_PRE"))
        #expect(device.info.options["credentialMgmtPreview"] == true && device.info.options["credMgmt"] == nil)
        let made = try device.makeCredential(CredentialRequest(residentKey: true), pin: Self.pin)
        #expect(try device.passkeys(pin: Self.secretPIN).map(\.credentialID) == [made.credentialID])
        #expect(try device.passkeySlots(pin: Self.secretPIN).remaining == 24)
        expectFido(Int32(CTAPStatus.invalidSubcommand.rawValue)) {
            try device.renamePasskey(
                credentialID: made.credentialID, userID: Array("user-1".utf8), name: "x", displayName: nil,
                pin: Self.secretPIN)
        }
        let request: [UInt8] = [CTAPCommand.credentialManagement.rawValue] + CBOR.map([(1, 1)]).encode()
        #expect(fixture.token.locked { fixture.token.execute(request, userTouched: false) } == .response([0x01]))
        try device.deletePasskey(credentialID: made.credentialID, pin: Self.secretPIN)
        #expect(try device.passkeys(pin: Self.secretPIN).isEmpty)
    }

    @Test func metadataCountsPasskeysOnlyAndTheSlotsLeft() throws {
        let (fixture, device, _) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        let slots = try device.passkeySlots(pin: Self.secretPIN)
        #expect(slots.used == 3)
        #expect(slots.remaining == SoftTokenConfiguration().discoverableCredentialSlots - 3)
    }

    @Test func enumerationListsEveryPasskeyWithUserCredProtectAndLargeBlobKey() throws {
        let (fixture, device, made) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        let passkeys = try device.passkeys(pin: Self.secretPIN)
        #expect(passkeys.map(\.rpID) == ["example.com", "example.com", "other.example"])
        #expect(passkeys.map(\.userName) == ["alice", "bob", "carol"])
        #expect(passkeys.map(\.credentialID) == made.map(\.credentialID))
        #expect(passkeys.map(\.userID) == [Array("alice".utf8), Array("bob".utf8), Array("carol".utf8)])
        #expect(passkeys.map(\.credProtect) == [1, 1, 3])
        #expect(passkeys.map(\.hasLargeBlobKey) == [false, false, true])
        #expect(passkeys[0].rpName == "Example")
    }

    @Test func deleteRemovesOnePasskeyAndItsSignInsAndFreesASlot() throws {
        let (fixture, device, made) = try populated()
        try device.deletePasskey(credentialID: made[0].credentialID, pin: Self.secretPIN)
        #expect(try device.passkeys(pin: Self.secretPIN).map(\.userName) == ["bob", "carol"])
        #expect(try device.passkeySlots(pin: Self.secretPIN).used == 2)
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: [made[0].credentialID]) }
        expectFido(FIDO_ERR_NO_CREDENTIALS) {
            try device.deletePasskey(credentialID: made[0].credentialID, pin: Self.secretPIN)
        }
        try fixture.reload()
        #expect(try fixture.open().passkeys(pin: Self.secretPIN).count == 2)
    }

    @Test func renameReplacesTheUserNamesAndKeepsTheUserID() throws {
        let (fixture, device, made) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        try device.renamePasskey(
            credentialID: made[1].credentialID, userID: Array("bob".utf8), name: "bob@new", displayName: nil,
            pin: Self.secretPIN)
        let bob = try #require(
            try device.passkeys(pin: Self.secretPIN).first { $0.credentialID == made[1].credentialID })
        #expect(bob.userName == "bob@new")
        #expect(bob.userDisplayName == nil)
        #expect(bob.userID == Array("bob".utf8))
        expectFido(FIDO_ERR_INVALID_PARAMETER) {
            try device.renamePasskey(
                credentialID: made[1].credentialID, userID: Array("mallory".utf8), name: "x", displayName: nil,
                pin: Self.secretPIN)
        }
    }

    @Test func emptyKeyHasNoPasskeys() throws {
        let fixture = try TokenFixture(pin: Self.pin)
        let device = try fixture.open()
        #expect(try device.passkeys(pin: Self.secretPIN).isEmpty)
        #expect(try device.passkeySlots(pin: Self.secretPIN).used == 0)
    }

    @Test func aWrongPINIsRefusedAndCostsARetry() throws {
        let (fixture, device, _) = try populated()
        defer { withExtendedLifetime(fixture) {} }
        expectFido(FIDO_ERR_PIN_INVALID) { _ = try device.passkeys(pin: SecretBytes(Array("9999".utf8))) }
        #expect(try device.pinRetries() == TokenState.maxPINRetries - 1)
    }

    @Test func aFullKeyRefusesAnotherPasskey() throws {
        var configuration = SoftTokenConfiguration()
        configuration.discoverableCredentialSlots = 1
        let fixture = try TokenFixture(configuration, pin: Self.pin)
        let device = try fixture.open()
        _ = try device.makeCredential(CredentialRequest(residentKey: true), pin: Self.pin)
        // The same user again replaces the passkey and needs no slot; a new user does.
        _ = try device.makeCredential(CredentialRequest(residentKey: true), pin: Self.pin)
        expectFido(FIDO_ERR_KEY_STORE_FULL) {
            try device.makeCredential(CredentialRequest(userID: Array("user-2".utf8), residentKey: true), pin: Self.pin)
        }
        let slots = try device.passkeySlots(pin: Self.secretPIN)
        #expect(slots.used == 1 && slots.remaining == 0)
    }
}

/// The pinUvAuthParam and permission rules of §6.8 on a raw client.
@Suite struct CredentialManagementRulesTests {
    static let cm: UInt8 = 0x04
    let session: PinUvAuthTokenRulesTests.Session

    init() throws {
        session = try PinUvAuthTokenRulesTests.Session()
        let token = try session.token(0x01, rpID: "example.com")
        let clientDataHash = Digest.sha256(Array("x".utf8))
        let (status, _) = try session.makeCredential(
            rpID: "example.com", param: PlatformPINProtocol2.authenticate(token: token, clientDataHash), rk: true,
            clientDataHash: clientDataHash)
        try #require(status == CTAPStatus.ok.rawValue)
    }

    func send(_ subcommand: Int, _ parameters: CBOR? = nil, token: [UInt8]?) throws -> (status: UInt8, reply: CBOR?) {
        var request: [(CBOR, CBOR)] = [(1, .int(subcommand))]
        if let parameters { request.append((2, parameters)) }
        if let token {
            let message = [UInt8(subcommand)] + (parameters?.encode() ?? [])
            request += [(3, 2), (4, .bytes(PlatformPINProtocol2.authenticate(token: token, message)))]
        }
        return try session.client.send(.credentialManagement, .map(request))
    }

    @Test func withoutPinUvAuthParamItIsPUATRequired() throws {
        #expect(try send(0x01, token: nil).status == CTAPStatus.puatRequired.rawValue)
    }

    @Test func aTokenWithoutTheCMPermissionIsRefused() throws {
        let token = try session.token(0x03, rpID: nil)
        #expect(try send(0x01, token: token).status == CTAPStatus.pinAuthInvalid.rawValue)
        #expect(try send(0x01, token: try session.token(Self.cm, rpID: nil)).status == CTAPStatus.ok.rawValue)
    }

    @Test func aTokenBoundToAnRPCannotListEveryRP() throws {
        let bound = try session.token(Self.cm, rpID: "example.com")
        #expect(try send(0x02, token: bound).status == CTAPStatus.pinAuthInvalid.rawValue)
        let hash = CBOR.map([(1, .bytes(Digest.sha256(Array("example.com".utf8))))])
        #expect(try send(0x04, hash, token: bound).status == CTAPStatus.ok.rawValue)
    }

    @Test func getNextWithoutABeginIsNotAllowed() throws {
        #expect(try send(0x03, token: nil).status == CTAPStatus.notAllowed.rawValue)
        #expect(try send(0x05, token: nil).status == CTAPStatus.notAllowed.rawValue)
    }

    @Test func updateUserInformationRenamesButKeepsTheUserID() throws {
        let token = try session.token(Self.cm, rpID: nil)
        let hash = CBOR.map([(1, .bytes(Digest.sha256(Array("example.com".utf8))))])
        let listed = try #require(try send(0x04, hash, token: token).reply)
        let descriptor = try #require(listed[int: 7])
        let renamed = CBOR.map([
            (2, descriptor), (3, .map([("id", .bytes(Array("user-1".utf8))), ("name", "alice@new")])),
        ])
        #expect(try send(0x07, renamed, token: token).status == CTAPStatus.ok.rawValue)
        let again = try #require(try send(0x04, hash, token: token).reply)
        #expect(again[int: 6]?[text: "name"]?.textValue == "alice@new")
        let otherUser = CBOR.map([(2, descriptor), (3, .map([("id", .bytes(Array("user-2".utf8))), ("name", "x")]))])
        #expect(try send(0x07, otherUser, token: token).status == CTAPStatus.invalidParameter.rawValue)
    }
}
