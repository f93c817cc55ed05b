import CBOR
import CFIDO2
import Cryptography
import FIDO
import Foundation
import Secrets
import Testing

@testable import SoftToken

/// A SoftToken in a fresh temporary directory, attached to libfido2's io hooks.
final class TokenFixture: @unchecked Sendable {
    let directory: String
    let stateFile: String
    private(set) var token: SoftToken
    private(set) var devicePath: String

    init(_ configuration: SoftTokenConfiguration = SoftTokenConfiguration(), pin: String? = nil) throws {
        var template = Array("/tmp/softtoken-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SoftTokenError.invalidConfiguration("mkdtemp failed") }
        directory = String(cString: made)
        stateFile = directory + "/token.json"
        token = try SoftToken.create(at: stateFile, configuration: configuration, pin: pin)
        devicePath = SoftTokenDevice.attach(token)
    }

    deinit {
        SoftTokenDevice.detach(path: devicePath)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Replaces the in-memory token by one loaded from the file ("unplug and replug", or a new process).
    func reload() throws {
        SoftTokenDevice.detach(path: devicePath)
        token = try SoftToken(stateFile: stateFile)
        devicePath = SoftTokenDevice.attach(token)
    }

    /// FIDO's own `Device` on this token, opened as the host opens a key (getInfo read); `timeoutMS` also bounds
    /// the open.
    func open(timeoutMS: Int? = nil) throws -> Device { try Self.open(path: devicePath, timeoutMS: timeoutMS) }

    static func open(path: String, timeoutMS: Int? = nil) throws(FIDOError) -> Device {
        _ = fidoInitialized
        let location = DeviceLocation(
            path: path, io: SoftTokenDevice.ioFunctions, manufacturer: "test",
            product: "SoftToken", isSoftware: true)
        let device = try Device.open(location, timeoutMilliseconds: timeoutMS)
        if let timeoutMS { device.setTimeout(milliseconds: timeoutMS) }
        return device
    }
}

/// The client data every test request signs: FIDO hashes it, and `libfido2Verify` hands it to libfido2 again.
let testClientData = Array(#"{"type":"webauthn.get","challenge":"dGVzdA"}"#.utf8)

extension CredentialRequest {
    /// The tests' usual request: example.com, user-1 "alice", ES256, not discoverable.
    init(userID: [UInt8] = Array("user-1".utf8), residentKey: Bool = false) {
        self.init(
            clientDataJSON: testClientData, rpID: "example.com", rpName: "Example", userID: userID,
            userName: "alice", userDisplayName: "Alice", algorithm: Int(COSE_ES256), residentKey: residentKey)
    }
}

extension MadeCredential {
    /// The flags byte of the authenticator data (UP 0x01, UV 0x04, AT 0x40, ED 0x80).
    var flags: UInt8 { authenticatorData[32] }
    var aaguid: [UInt8] { Array(authenticatorData[37..<53]) }
    private var credentialEnd: Int { 55 + (Int(authenticatorData[53]) << 8 | Int(authenticatorData[54])) }
    private var coseKey: (key: CBOR, end: Int)? {
        guard let (key, used) = try? CBOR.decodePrefix(authenticatorData[credentialEnd...]) else { return nil }
        return (key, credentialEnd + used)
    }
    /// The public key as libfido2 takes it: x‖y for ES256, the 32 raw bytes for EdDSA.
    var publicKey: [UInt8] {
        guard let key = coseKey?.key else { return [] }
        return (key[int: -2]?.bytesValue ?? []) + (key[int: -3]?.bytesValue ?? [])
    }
    /// The attestation certificate (x5c[0]), empty for self attestation.
    var x5c: [UInt8] {
        guard let statement = try? CBOR.decode(attestationStatement) else { return [] }
        return statement[text: "x5c"]?.arrayValue?.first?.bytesValue ?? []
    }
    /// The extension outputs in authenticator data, decoded.
    var extensionOutputs: CBOR? {
        guard flags & 0x80 != 0, let end = coseKey?.end else { return nil }
        return try? CBOR.decode(Array(authenticatorData[end...]))
    }
}

extension Assertion {
    var flags: UInt8 { authenticatorData[32] }
    var signCount: UInt32 { authenticatorData[33..<37].reduce(0) { $0 << 8 | UInt32($1) } }
}

extension Device {
    /// FIDO's makeCredential with the tests' usual request and a PIN typed as text.
    @discardableResult
    func makeCredential(_ request: CredentialRequest = CredentialRequest(), pin: String? = nil) throws(FIDOError)
        -> MadeCredential
    {
        try makeCredential(request, pin: pin.map { SecretBytes(Array($0.utf8)) })
    }

    /// FIDO's getAssertions for example.com with the tests' client data.
    @discardableResult
    func getAssertion(
        rpID: String = "example.com", allow: [[UInt8]] = [], pin: String? = nil, up: Bool = true, uv: Bool = false,
        extensions: AssertionExtensions = AssertionExtensions()
    ) throws(FIDOError) -> [Assertion] {
        let request = FIDO.AssertionRequest(
            clientDataJSON: testClientData, rpID: rpID, allowList: allow, builtInUV: uv,
            userPresence: up, extensions: extensions)
        return try getAssertions(request, pin: pin.map { SecretBytes(Array($0.utf8)) })
    }
}

extension AssertionExtensions {
    static func withHMACSecret(_ salt: [UInt8]) -> Self {
        var asked = Self()
        asked.hmacSalt = salt
        return asked
    }

    static var withLargeBlobKey: Self {
        var asked = Self()
        asked.largeBlobKey = true
        return asked
    }

    static var withCredentialBlob: Self {
        var asked = Self()
        asked.credentialBlob = true
        return asked
    }
}

/// libfido2's own verdict on a credential FIDO made from `request` (fido_cred_verify, or fido_cred_verify_self for
/// self attestation): the attestation statement, rebuilt into a fido_cred_t.
func libfido2Verify(
    _ credential: MadeCredential, _ request: CredentialRequest = CredentialRequest(),
    selfAttested: Bool = false
) -> Int32 {
    guard let cred = fido_cred_new() else { return FIDO_ERR_INTERNAL }
    var owned: OpaquePointer? = cred
    defer { fido_cred_free(&owned) }
    check(fido_cred_set_type(cred, Int32(credential.algorithm)))
    check(fido_cred_set_clientdata(cred, request.clientDataJSON, request.clientDataJSON.count))
    check(fido_cred_set_rp(cred, request.rpID, request.rpName))
    check(fido_cred_set_authdata_raw(cred, credential.authenticatorData, credential.authenticatorData.count))
    check(fido_cred_set_fmt(cred, credential.format))
    check(fido_cred_set_attstmt(cred, credential.attestationStatement, credential.attestationStatement.count))
    return selfAttested ? fido_cred_verify_self(cred) : fido_cred_verify(cred)
}

/// libfido2's own verdict on an assertion (fido_assert_verify) with the credential's `publicKey` (x‖y for ES256,
/// 32 bytes for EdDSA); `hmacSecret` when the request asked for it, since libfido2 checks the extensions asked for.
func libfido2Verify(
    _ assertion: Assertion, rpID: String = "example.com", hmacSecret: Bool = false,
    algorithm: Int32 = COSE_ES256, publicKey: [UInt8]
) -> Int32 {
    guard let assert = fido_assert_new() else { return FIDO_ERR_INTERNAL }
    var owned: OpaquePointer? = assert
    defer { fido_assert_free(&owned) }
    check(fido_assert_set_clientdata(assert, testClientData, testClientData.count))
    check(fido_assert_set_rp(assert, rpID))
    if hmacSecret { check(fido_assert_set_extensions(assert, FIDO_EXT_HMAC_SECRET)) }
    check(fido_assert_set_count(assert, 1))
    check(fido_assert_set_authdata_raw(assert, 0, assertion.authenticatorData, assertion.authenticatorData.count))
    check(fido_assert_set_sig(assert, 0, assertion.signature, assertion.signature.count))
    if algorithm == COSE_EDDSA {
        var pk = eddsa_pk_new()
        defer { eddsa_pk_free(&pk) }
        guard eddsa_pk_from_ptr(pk, publicKey, publicKey.count) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
        return fido_assert_verify(assert, 0, algorithm, UnsafeRawPointer(pk))
    }
    var pk = es256_pk_new()
    defer { es256_pk_free(&pk) }
    guard es256_pk_from_ptr(pk, publicKey, publicKey.count) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
    return fido_assert_verify(assert, 0, algorithm, UnsafeRawPointer(pk))
}

/// The libfido2 status of a FIDO call: FIDO_OK, or the code it threw.
func fidoStatus(_ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return FIDO_OK
    } catch {
        return (error as? FIDOError)?.code ?? FIDO_ERR_INTERNAL
    }
}

/// Setters on fido_cred_t/fido_assert_t only fail on misuse by the test itself.
func check(_ result: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        result == FIDO_OK, "libfido2 setter failed: \(String(cString: fido_strerr(result)))",
        sourceLocation: sourceLocation)
}

/// Expects a libfido2 call to fail with exactly `code`.
func expectFido(_ code: Int32, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(String(cString: fido_strerr(code))), got success", sourceLocation: sourceLocation)
    } catch {
        #expect(
            (error as? FIDOError)?.code == code, "expected \(String(cString: fido_strerr(code))), got \(error)",
            sourceLocation: sourceLocation)
    }
}

/// Milliseconds taken by `body`.
func elapsedMS(_ body: () -> Void) -> Int {
    let start = ContinuousClock.now
    body()
    return Int((ContinuousClock.now - start) / .milliseconds(1))
}

/// fido_init once per process (lazy globals are initialised exactly once, thread-safely).
let fidoInitialized: Void = fido_init(0)
