import CBOR
import CFIDO2
import Cryptography
import Foundation
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct ExtensionTests {
    /// The credential's sealed secrets, opened with the token's own wrapping key (white-box, to know credRandom).
    func secrets(_ fixture: TokenFixture, _ id: [UInt8]) throws -> CredentialSecrets {
        try #require(
            CredentialID.open(
                id, rpIDHash: Digest.sha256(Array("example.com".utf8)), key: Array(fixture.token.state.wrappingKey)))
    }

    @Test(arguments: [[2, 1], [1]]) func hmacSecretEqualsHMACOfCredRandomAndSalt(protocols: [Int]) throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(pinUvAuthProtocols: protocols), pin: "1234")
        let device = try fixture.open()
        var request = CredentialRequest()
        request.extensions.hmacSecret = true
        let credential = try device.makeCredential(request)
        #expect(credential.extensionOutputs?[text: "hmac-secret"] == .bool(true))
        let secrets = try secrets(fixture, credential.credentialID)
        let salt = Digest.sha256(Array("salt".utf8))

        let withoutUV = try device.getAssertion(allow: [credential.credentialID], extensions: .withHMACSecret(salt))
        #expect(withoutUV[0].hmacSecret == Digest.hmacSHA256(key: secrets.credRandomWithoutUV, data: salt))
        #expect(libfido2Verify(withoutUV[0], hmacSecret: true, publicKey: credential.publicKey) == FIDO_OK)

        let withUV = try device.getAssertion(
            allow: [credential.credentialID], pin: "1234", extensions: .withHMACSecret(salt))
        #expect(withUV[0].hmacSecret == Digest.hmacSHA256(key: secrets.credRandomWithUV, data: salt))
        #expect(withUV[0].hmacSecret != withoutUV[0].hmacSecret)

        let otherSalt = Digest.sha256(Array("other".utf8))
        let other = try device.getAssertion(allow: [credential.credentialID], extensions: .withHMACSecret(otherSalt))
        #expect(other[0].hmacSecret == Digest.hmacSHA256(key: secrets.credRandomWithoutUV, data: otherSalt))
    }

    @Test func credProtectUVRequiredHidesTheCredentialWithoutUV() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.credentialProtection = Int(FIDO_CRED_PROT_UV_REQUIRED)
        let credential = try device.makeCredential(request, pin: "1234")
        #expect(credential.extensionOutputs?[text: "credProtect"] == .int(3))
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion(allow: [credential.credentialID]) }
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion() }
        #expect(
            libfido2Verify(
                try device.getAssertion(allow: [credential.credentialID], pin: "1234")[0],
                publicKey: credential.publicKey) == FIDO_OK)
        #expect(try device.getAssertion(pin: "1234").count == 1)
        // An excludeList does not reveal it without UV either.
        var again = CredentialRequest()
        again.userID = Array("user-2".utf8)
        again.excludeList = [credential.credentialID]
        try device.makeCredential(again)
    }

    @Test func credProtectOptionalWithIDHidesOnlyDiscovery() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.credentialProtection = Int(FIDO_CRED_PROT_UV_OPTIONAL_WITH_ID)
        let credential = try device.makeCredential(request)
        #expect(credential.extensionOutputs?[text: "credProtect"] == .int(2))
        expectFido(FIDO_ERR_NO_CREDENTIALS) { try device.getAssertion() }
        try device.getAssertion(allow: [credential.credentialID])
        #expect(fixture.token.summary().credentials.first?.credProtect == 2)
    }

    @Test func credBlobIsStoredAndReturned() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.credentialBlob = Array("a small blob".utf8)
        let credential = try device.makeCredential(request)
        #expect(credential.extensionOutputs?[text: "credBlob"] == .bool(true))
        let assertion = try device.getAssertion(allow: [credential.credentialID], extensions: .withCredentialBlob)
        #expect(assertion[0].credentialBlob == Array("a small blob".utf8))
    }

    @Test func credBlobLongerThanTheMaximumIsNotStored() throws {
        let fixture = try TokenFixture()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.credentialBlob = Array(repeating: 0x42, count: 33)
        let credential = try fixture.open().makeCredential(request)
        #expect(credential.extensionOutputs?[text: "credBlob"] == .bool(false))
    }

    @Test func minPinLengthIsReportedOnlyToAllowedRPs() throws {
        var configuration = SoftTokenConfiguration()
        configuration.minPINLength = 6
        configuration.minPINLengthRPIDs = ["example.com"]
        let fixture = try TokenFixture(configuration)
        let device = try fixture.open()
        var request = CredentialRequest()
        request.extensions.minPINLength = true
        #expect(try device.makeCredential(request).extensionOutputs?[text: "minPinLength"] == .int(6))
        request.rpID = "other.example"
        #expect(try device.makeCredential(request).extensionOutputs?[text: "minPinLength"] == nil)
    }

    @Test func largeBlobKeyIsReturnedAtCreationAndAssertion() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.residentKey = true
        request.extensions.largeBlobKey = true
        let credential = try device.makeCredential(request)
        #expect(credential.largeBlobKey?.count == 32)
        let assertion = try device.getAssertion(extensions: .withLargeBlobKey)
        #expect(assertion[0].largeBlobKey == credential.largeBlobKey)
    }

    @Test func largeBlobKeyNeedsADiscoverableCredential() throws {
        let fixture = try TokenFixture()
        var request = CredentialRequest()
        request.extensions.largeBlobKey = true
        expectFido(FIDO_ERR_INVALID_OPTION) { try fixture.open().makeCredential(request) }
    }
}

@Suite struct LargeBlobTests {
    func largeBlobKey(_ device: Device, pin: String? = nil, uv: Bool = false) throws -> [UInt8] {
        var request = CredentialRequest()
        if uv { request.builtInUV = true }
        request.residentKey = true
        request.extensions.largeBlobKey = true
        return try device.makeCredential(request, pin: pin).largeBlobKey ?? []
    }

    func get(_ device: Device, key: [UInt8]) -> (Int32, [UInt8]) {
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        let result = fido_dev_largeblob_get(device.handle, key, key.count, &pointer, &length)
        defer { free(pointer) }
        return (result, pointer.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [])
    }

    @Test func emptyArrayHasTheSpecifiedTrailer() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        #expect(fido_dev_largeblob_get_array(device.handle, &pointer, &length) == FIDO_OK)
        defer { free(pointer) }
        #expect(Array(UnsafeBufferPointer(start: pointer, count: length)) == [0x80])
        #expect(Array(fixture.token.state.largeBlobArray) == [0x80] + Array(Digest.sha256([0x80]).prefix(16)))
    }

    @Test(arguments: [[2, 1], [1]]) func blobWrittenWithPINIsReadBackAndPersisted(protocols: [Int]) throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(pinUvAuthProtocols: protocols), pin: "1234")
        let device = try fixture.open()
        let key = try largeBlobKey(device, pin: "1234")
        let blob = Array("certificate for alice, ".utf8) + Array(repeating: 0x5A, count: 900)
        #expect(fido_dev_largeblob_set(device.handle, key, key.count, blob, blob.count, "1234") == FIDO_OK)
        let (result, read) = get(device, key: key)
        #expect(result == FIDO_OK)
        #expect(read == blob)
        try fixture.reload()
        let (again, persisted) = get(try fixture.open(), key: key)
        #expect(again == FIDO_OK)
        #expect(persisted == blob)
    }

    @Test func blobWriteWithoutPINOnAPINTokenIsRefused() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        let key = try largeBlobKey(device, pin: "1234")
        let blob = Array("x".utf8)
        #expect(fido_dev_largeblob_set(device.handle, key, key.count, blob, blob.count, nil) != FIDO_OK)
        #expect(get(device, key: key).0 == FIDO_ERR_NOTFOUND)
    }

    /// libfido2 1.12 asks for a pinUvAuthToken whenever the token supports permissions; without a PIN it uses
    /// getPinUvAuthTokenUsingUvWithPermissions, i.e. built-in UV.
    @Test func blobWrittenWithBuiltInUVNeedsNoPIN() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(builtInUV: true))
        let device = try fixture.open()
        let key = try largeBlobKey(device, uv: true)
        let blob = Array(String(repeating: "hello, large blob. ", count: 4).utf8)
        let result = fido_dev_largeblob_set(device.handle, key, key.count, blob, blob.count, nil)
        #expect(result == FIDO_OK, "\(String(cString: fido_strerr(result)))")
        #expect(get(device, key: key).1 == blob)
    }

    @Test func arrayLargerThanTheMaximumIsStorageFull() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        let key = try largeBlobKey(device, pin: "1234")
        var blob = [UInt8](repeating: 0, count: 4000)
        for i in blob.indices { blob[i] = UInt8.random(in: 0...255) }
        #expect(
            fido_dev_largeblob_set(device.handle, key, key.count, blob, blob.count, "1234")
                == FIDO_ERR_LARGEBLOB_STORAGE_FULL)
    }
}

@Suite struct HMACSecretScopeTests {
    @Test func credentialMadeWithoutHMACSecretGivesNoHMACOutput() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        let credential = try device.makeCredential()
        let salt = Digest.sha256(Array("salt".utf8))
        let assertion = try device.getAssertion(allow: [credential.credentialID], extensions: .withHMACSecret(salt))
        #expect((assertion[0].hmacSecret ?? []).isEmpty)
        // libfido2 then refuses to verify: it insists every requested extension appears in authenticator data.
        #expect(
            libfido2Verify(assertion[0], hmacSecret: true, publicKey: credential.publicKey) == FIDO_ERR_INVALID_PARAM)
    }

    @Test func twoSaltsGiveTwoOutputsFromOneAssertion() throws {
        let fixture = try TokenFixture()
        let device = try fixture.open()
        var request = CredentialRequest()
        request.extensions.hmacSecret = true
        let credential = try device.makeCredential(request)
        let salts = Digest.sha256(Array("one".utf8)) + Digest.sha256(Array("two".utf8))
        let assertion = try device.getAssertion(allow: [credential.credentialID], extensions: .withHMACSecret(salts))
        let secrets = try #require(
            CredentialID.open(
                credential.credentialID, rpIDHash: Digest.sha256(Array("example.com".utf8)),
                key: Array(fixture.token.state.wrappingKey)))
        #expect(
            assertion[0].hmacSecret == Digest.hmacSHA256(key: secrets.credRandomWithoutUV, data: salts.prefix(32))
                + Digest.hmacSHA256(key: secrets.credRandomWithoutUV, data: salts.suffix(32)))
    }
}
