import CBOR
import CFIDO2
import CTAP
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

/// The configurations `token create --profile` uses, as libfido2 sees them.
@Suite struct ProfileTests {
    static func profile(_ name: String) throws -> SoftTokenConfiguration {
        try #require(SoftTokenProfile.named(name)).configuration
    }

    static func info(_ device: Device) throws -> (
        versions: [String], options: [String: Bool], protocols: [UInt8], maxList: UInt64
    ) {
        let info = try #require(fido_cbor_info_new())
        var owned: OpaquePointer? = info
        defer { fido_cbor_info_free(&owned) }
        #expect(fido_dev_get_cbor_info(device.handle, info) == FIDO_OK)
        let versions = (0..<fido_cbor_info_versions_len(info)).compactMap {
            fido_cbor_info_versions_ptr(info)?[$0].map { String(cString: $0) }
        }
        var options: [String: Bool] = [:]
        for i in 0..<fido_cbor_info_options_len(info) {
            guard let name = fido_cbor_info_options_name_ptr(info)?[i] else { continue }
            options[String(cString: name)] = fido_cbor_info_options_value_ptr(info)?[i]
        }
        let protocols = Array(
            UnsafeBufferPointer(start: fido_cbor_info_protocols_ptr(info), count: fido_cbor_info_protocols_len(info)))
        return (versions, options, protocols, fido_cbor_info_maxcredcntlst(info))
    }

    @Test func aProfileOfAYubiKeyCarriesItsUSBIdentityAndOtherTokensAnIdNoKeyUses() {
        #expect(
            SoftTokenProfile.usbIdentity(ofProfile: "yubikey5")
                == USBIdentity(
                    vendorId: 0x1050, productId: 0x0407, manufacturer: "Yubico", product: "YubiKey OTP+FIDO+CCID"))
        #expect(SoftTokenProfile.usbIdentity(ofProfile: nil) == .softToken)
        #expect(SoftTokenProfile.usbIdentity(ofProfile: "small-limits") == .softToken)
        #expect(SoftTokenProfile.usbIdentity(ofProfile: "u2f-only").productId == 0x0120)
    }

    @Test func everyProfileIsValidAndNamesItself() throws {
        #expect(Set(SoftTokenProfile.all.map(\.name)).count == SoftTokenProfile.all.count)
        for profile in SoftTokenProfile.all {
            try profile.configuration.validate()
            #expect(profile.configuration.profile == profile.name)
        }
    }

    @Test func aCTAP20KeyNeedsItsPINForEveryCredentialAndUsesPINProtocolOne() throws {
        let fixture = try TokenFixture(try Self.profile("ctap20"), pin: "1234")
        let device = try fixture.open()
        let info = try Self.info(device)
        #expect(info.versions == ["U2F_V2", "FIDO_2_0"])
        #expect(
            info.options["pinUvAuthToken"] == nil && info.options["makeCredUvNotRqd"] == nil
                && info.options["largeBlobs"] == nil)
        #expect(info.protocols == [1])
        #expect(!fido_dev_supports_permissions(device.handle))
        expectFido(FIDO_ERR_PIN_REQUIRED) { try device.makeCredential() }
        let credential = try device.makeCredential(pin: "1234")
        #expect(credential.flags & 0x04 != 0, "UV through getPINToken")
        var eddsa = CredentialRequest()
        eddsa.algorithm = Int(COSE_EDDSA)
        expectFido(FIDO_ERR_UNSUPPORTED_ALGORITHM) { try device.makeCredential(eddsa, pin: "1234") }
    }

    @Test func anAlwaysUVKeyRefusesEveryRequestWithoutUV() throws {
        let fixture = try TokenFixture(try Self.profile("always-uv"), pin: "1234")
        let device = try fixture.open()
        #expect(try Self.info(device).options["alwaysUv"] == true)
        expectFido(FIDO_ERR_PIN_REQUIRED) { try device.makeCredential() }
        let credential = try device.makeCredential(pin: "1234")
        expectFido(FIDO_ERR_PIN_REQUIRED) { try device.getAssertion(allow: [credential.credentialID]) }
        #expect(try device.getAssertion(allow: [credential.credentialID], pin: "1234")[0].flags & 0x04 != 0)
        // A platform's silent pre-flight (up=false) needs no UV: it is not a request the user makes.
        #expect(try device.getAssertion(allow: [credential.credentialID], up: false)[0].flags & 0x05 == 0)
        // U2F is off while alwaysUv is on: INIT keeps NMSG set.
        let raw = try RawChannel(fixture.devicePath)
        raw.write(RawChannel.cid(0xFFFF_FFFF) + [0x86, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try #require(raw.read())[23] & 0x08 != 0)
    }

    @Test func listsLongerThanMaxCredentialCountInListAreRefused() throws {
        let fixture = try TokenFixture(try Self.profile("small-limits"))
        let device = try fixture.open()
        #expect(try Self.info(device).maxList == 2)
        let credential = try device.makeCredential()
        #expect(try device.getAssertion(allow: [[1, 2, 3], credential.credentialID]).count == 1)
        expectFido(FIDO_ERR_LIMIT_EXCEEDED) { try device.getAssertion(allow: [[1], [2], credential.credentialID]) }
    }

    @Test func extensionsTheKeyDoesNotListAreIgnored() throws {
        let fixture = try TokenFixture(try Self.profile("es256-only"))
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.largeBlobKey = true
        request.extensions.hmacSecret = true
        request.extensions.credentialBlob = [1, 2, 3]
        let credential = try device.makeCredential(request)
        #expect((credential.largeBlobKey ?? []).isEmpty, "largeBlobKey is not listed: no key")
        let outputs = try #require(credential.extensionOutputs)
        #expect(outputs[text: "hmac-secret"] == .bool(true))
        #expect(outputs[text: "credBlob"] == nil)
        // No largeBlobs option: the command itself is unknown to the key.
        let client = try RawCTAP2Client(fixture.devicePath)
        #expect(try client.send(.largeBlobs, .map([(1, 32), (3, 0)])).status == CTAPStatus.invalidCommand.rawValue)
    }
}
