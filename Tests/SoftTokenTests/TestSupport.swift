import CBOR
import CFIDO2
import Cryptography
import Foundation
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

    func open(timeoutMS: Int32? = nil) throws -> Device { try Device(path: devicePath, timeoutMS: timeoutMS) }
}

struct FidoError: Error, CustomStringConvertible {
    let code: Int32
    let call: String
    var description: String { "\(call): \(String(cString: fido_strerr(code))) (\(code))" }
}

/// One libfido2 `fido_dev_t` opened on a SoftToken through the io hooks, as the host does it.
final class Device: @unchecked Sendable {
    let dev: OpaquePointer

    init(path: String, timeoutMS: Int32? = nil) throws {
        _ = fidoInitialized
        dev = fido_dev_new()!
        var io = SoftTokenDevice.ioFunctions
        fido_dev_set_io_functions(dev, &io)
        if let timeoutMS { fido_dev_set_timeout(dev, timeoutMS) }
        let result = fido_dev_open(dev, path)
        // On failure deinit still runs (all properties are set) and frees dev.
        guard result == FIDO_OK else { throw FidoError(code: result, call: "fido_dev_open") }
    }

    deinit {
        fido_dev_close(dev)
        var d: OpaquePointer? = dev
        fido_dev_free(&d)
    }

    func setTimeout(_ ms: Int32) { fido_dev_set_timeout(dev, ms) }
}

/// What a makeCredential request asks for.
struct CredentialRequest {
    var rpID = "example.com"
    var userID: [UInt8] = Array("user-1".utf8)
    var userName = "alice"
    var displayName = "Alice"
    var algorithm: Int32 = COSE_ES256
    var residentKey = false
    var userVerification: fido_opt_t = FIDO_OPT_OMIT
    var exclude: [[UInt8]] = []
    var extensions: Int32 = 0
    var credProtect: Int32 = 0
    var credBlob: [UInt8]?
    var clientDataHash: [UInt8] = Digest.sha256(Array("client data".utf8))
}

/// A libfido2 `fido_cred_t`, freed with the object.
final class Credential {
    let cred: OpaquePointer
    init() { cred = fido_cred_new()! }
    deinit {
        var c: OpaquePointer? = cred
        fido_cred_free(&c)
    }
    var id: [UInt8] { Array(UnsafeBufferPointer(start: fido_cred_id_ptr(cred), count: fido_cred_id_len(cred))) }
    var publicKey: [UInt8] { Array(UnsafeBufferPointer(start: fido_cred_pubkey_ptr(cred), count: fido_cred_pubkey_len(cred))) }
    var authData: [UInt8] { Array(UnsafeBufferPointer(start: fido_cred_authdata_raw_ptr(cred), count: fido_cred_authdata_raw_len(cred))) }
    var x5c: [UInt8] {
        guard let p = fido_cred_x5c_ptr(cred) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: fido_cred_x5c_len(cred)))
    }
    var largeBlobKey: [UInt8] {
        guard let p = fido_cred_largeblob_key_ptr(cred) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: fido_cred_largeblob_key_len(cred)))
    }
    var flags: UInt8 { fido_cred_flags(cred) }
    /// The extension outputs in authenticator data, decoded.
    var extensionOutputs: CBOR? {
        let data = authData
        guard data.count > 37, data[32] & 0x80 != 0 else { return nil }
        var offset = 37
        if data[32] & 0x40 != 0 {
            let idLength = Int(data[53]) << 8 | Int(data[54])
            offset = 55 + idLength
            guard let (_, used) = try? CBOR.decodePrefix(data[offset...]) else { return nil }
            offset += used
        }
        return try? CBOR.decode(Array(data[offset...]))
    }
}

extension Device {
    /// Runs fido_dev_make_cred; returns the credential or throws the libfido2 error.
    @discardableResult
    func makeCredential(_ request: CredentialRequest = CredentialRequest(), pin: String? = nil) throws(FidoError) -> Credential {
        let credential = Credential()
        let c = credential.cred
        check(fido_cred_set_type(c, request.algorithm))
        check(fido_cred_set_clientdata_hash(c, request.clientDataHash, request.clientDataHash.count))
        check(fido_cred_set_rp(c, request.rpID, "Example"))
        check(fido_cred_set_user(c, request.userID, request.userID.count, request.userName, request.displayName, nil))
        if request.residentKey { check(fido_cred_set_rk(c, FIDO_OPT_TRUE)) }
        if request.userVerification != FIDO_OPT_OMIT { check(fido_cred_set_uv(c, request.userVerification)) }
        for id in request.exclude { check(fido_cred_exclude(c, id, id.count)) }
        if request.extensions != 0 { check(fido_cred_set_extensions(c, request.extensions)) }
        if request.credProtect != 0 { check(fido_cred_set_prot(c, request.credProtect)) }
        if let blob = request.credBlob { check(fido_cred_set_blob(c, blob, blob.count)) }
        let result = fido_dev_make_cred(dev, c, pin)
        guard result == FIDO_OK else { throw FidoError(code: result, call: "fido_dev_make_cred") }
        return credential
    }

    /// Runs fido_dev_get_assert; returns the assertion or throws the libfido2 error.
    @discardableResult
    func getAssertion(
        rpID: String = "example.com", allow: [[UInt8]] = [], pin: String? = nil, up: fido_opt_t = FIDO_OPT_OMIT,
        uv: fido_opt_t = FIDO_OPT_OMIT, extensions: Int32 = 0, hmacSalt: [UInt8]? = nil,
        clientDataHash: [UInt8] = Digest.sha256(Array("assert".utf8))
    ) throws(FidoError) -> Assertion {
        let assertion = Assertion()
        let a = assertion.assert
        check(fido_assert_set_rp(a, rpID))
        check(fido_assert_set_clientdata_hash(a, clientDataHash, clientDataHash.count))
        for id in allow { check(fido_assert_allow_cred(a, id, id.count)) }
        if up != FIDO_OPT_OMIT { check(fido_assert_set_up(a, up)) }
        if uv != FIDO_OPT_OMIT { check(fido_assert_set_uv(a, uv)) }
        if extensions != 0 { check(fido_assert_set_extensions(a, extensions)) }
        if let hmacSalt { check(fido_assert_set_hmac_salt(a, hmacSalt, hmacSalt.count)) }
        let result = fido_dev_get_assert(dev, a, pin)
        guard result == FIDO_OK else { throw FidoError(code: result, call: "fido_dev_get_assert") }
        return assertion
    }

    func retryCount() -> Int32 {
        var retries: Int32 = -1
        let r = fido_dev_get_retry_count(dev, &retries)
        return r == FIDO_OK ? retries : -r - 1000
    }

    func setPIN(_ new: String, old: String? = nil) -> Int32 { fido_dev_set_pin(dev, new, old) }
}

/// A libfido2 `fido_assert_t`, freed with the object.
final class Assertion {
    let assert: OpaquePointer
    init() { assert = fido_assert_new()! }
    deinit {
        var a: OpaquePointer? = assert
        fido_assert_free(&a)
    }
    var count: Int { fido_assert_count(assert) }
    func signCount(_ i: Int = 0) -> UInt32 { fido_assert_sigcount(assert, i) }
    func flags(_ i: Int = 0) -> UInt8 { fido_assert_flags(assert, i) }
    func userID(_ i: Int = 0) -> [UInt8] {
        guard let p = fido_assert_user_id_ptr(assert, i) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: fido_assert_user_id_len(assert, i)))
    }
    func userName(_ i: Int = 0) -> String? { fido_assert_user_name(assert, i).map { String(cString: $0) } }
    func credentialID(_ i: Int = 0) -> [UInt8] {
        Array(UnsafeBufferPointer(start: fido_assert_id_ptr(assert, i), count: fido_assert_id_len(assert, i)))
    }
    func hmacSecret(_ i: Int = 0) -> [UInt8] {
        guard let p = fido_assert_hmac_secret_ptr(assert, i) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: fido_assert_hmac_secret_len(assert, i)))
    }
    func credBlob(_ i: Int = 0) -> [UInt8]? {
        guard let p = fido_assert_blob_ptr(assert, i) else { return nil }
        return Array(UnsafeBufferPointer(start: p, count: fido_assert_blob_len(assert, i)))
    }
    func largeBlobKey(_ i: Int = 0) -> [UInt8] {
        guard let p = fido_assert_largeblob_key_ptr(assert, i) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: fido_assert_largeblob_key_len(assert, i)))
    }

    /// fido_assert_verify with the credential's public key (raw x‖y for ES256, 32 bytes for EdDSA).
    func verify(_ i: Int = 0, algorithm: Int32 = COSE_ES256, publicKey: [UInt8]) -> Int32 {
        if algorithm == COSE_EDDSA {
            var pk = eddsa_pk_new()
            defer { eddsa_pk_free(&pk) }
            guard eddsa_pk_from_ptr(pk, publicKey, publicKey.count) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
            return fido_assert_verify(assert, i, algorithm, UnsafeRawPointer(pk))
        }
        var pk = es256_pk_new()
        defer { es256_pk_free(&pk) }
        guard es256_pk_from_ptr(pk, publicKey, publicKey.count) == FIDO_OK else { return FIDO_ERR_INVALID_ARGUMENT }
        return fido_assert_verify(assert, i, algorithm, UnsafeRawPointer(pk))
    }
}

/// Setters on fido_cred_t/fido_assert_t only fail on misuse by the test itself.
func check(_ result: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result == FIDO_OK, "libfido2 setter failed: \(String(cString: fido_strerr(result)))", sourceLocation: sourceLocation)
}

/// Expects a libfido2 call to fail with exactly `code`.
func expectFido(_ code: Int32, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected \(String(cString: fido_strerr(code))), got success", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? FidoError)?.code == code, "expected \(String(cString: fido_strerr(code))), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Milliseconds taken by `body`.
func elapsedMS(_ body: () -> Void) -> Int {
    let start = Date()
    body()
    return Int(Date().timeIntervalSince(start) * 1000)
}

let allExtensions = FIDO_EXT_HMAC_SECRET | FIDO_EXT_CRED_PROTECT | FIDO_EXT_LARGEBLOB_KEY | FIDO_EXT_CRED_BLOB | FIDO_EXT_MINPINLEN

/// fido_init once per process (lazy globals are initialised exactly once, thread-safely).
let fidoInitialized: Void = fido_init(0)
