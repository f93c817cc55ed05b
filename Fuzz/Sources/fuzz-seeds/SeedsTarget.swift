import CBOR
import CFIDO2
import FIDO
import FuzzSupport
import Glibc
import SoftToken

/// Not a fuzz target: writes the seed corpora that come from a real exchange between libfido2 and a SoftToken
/// (open + getInfo, makeCredential with PIN and extensions, getAssertion with and without an allow list,
/// a large-blob read, PIN retries). It is built with the fuzz targets, so it has libFuzzer's `main`; it does its work
/// in `LLVMFuzzerInitialize` and exits. Usage: fuzz-seeds OUTPUT-DIRECTORY (scripts/fuzz.sh --make-seeds).
@_cdecl("LLVMFuzzerInitialize")
public func makeSeeds(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    guard argc.pointee == 2, let arguments = argv.pointee, let output = arguments[1].map({ String(cString: $0) }) else {
        print("usage: fuzz-seeds OUTPUT-DIRECTORY")
        exit(2)
    }
    let seeds = SeedWriter(root: output)
    let session = Session()
    session.record(seeds)
    exit(0)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func unused(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }

/// One token, one libfido2 device, the operations a browser session makes.
final class Session {
    let scratch = ScratchDirectory(name: "seeds")
    let token: SoftToken
    let dev: OpaquePointer
    let pin = TokenTemplate.pin
    let clientDataHash = [UInt8](repeating: 0x5A, count: 32)
    let rpID = "example.com"

    init() {
        FIDOLibrary.attachLogging(to: nil)
        do {
            token = try SoftToken.create(
                at: scratch.file("token.state"), configuration: SoftTokenConfiguration(), pin: TokenTemplate.pin)
        } catch { fatalError("cannot create a SoftToken: \(error)") }
        guard let device = fido_dev_new() else { fatalError("fido_dev_new: out of memory") }
        dev = device
        var io = Recorder.io
        fido_dev_set_io_functions(dev, &io)
    }

    func record(_ seeds: SeedWriter) {
        let path = SoftTokenDevice.attach(token)
        expect(fido_dev_open(dev, path), "fido_dev_open")
        seeds.exchange("open-getinfo", Recorder.take())

        let (credentialID, largeBlobKey) = makeCredential()
        seeds.exchange("make-credential-pin", Recorder.take())
        getAssertion(allow: credentialID)
        seeds.exchange("get-assertion-allow-list", Recorder.take())
        getAssertion(allow: nil)
        seeds.exchange("get-assertion-discoverable", Recorder.take())
        if let largeBlobKey {
            // Reading the (empty) large-blob array: the largeBlobs command with an offset and a length.
            var blob: UnsafeMutablePointer<UInt8>?
            var length = 0
            let status = fido_dev_largeblob_get(dev, largeBlobKey, largeBlobKey.count, &blob, &length)
            guard status == FIDO_OK || status == FIDO_ERR_NOTFOUND else {
                fatalError("fido_dev_largeblob_get: \(status)")
            }
            free(blob)
            seeds.exchange("large-blob-get", Recorder.take())
        }
        var retries: Int32 = 0
        expect(fido_dev_get_retry_count(dev, &retries), "fido_dev_get_retry_count")
        seeds.exchange("pin-retries", Recorder.take())
        _ = fido_dev_close(dev)
        SoftTokenDevice.detach(path: path)
        seeds.stateFiles(scratch)
    }

    private func makeCredential() -> (id: [UInt8], largeBlobKey: [UInt8]?) {
        guard let cred = fido_cred_new() else { fatalError("fido_cred_new: out of memory") }
        var owned: OpaquePointer? = cred
        defer { fido_cred_free(&owned) }
        let userID: [UInt8] = Array("user-1".utf8)
        expect(fido_cred_set_type(cred, COSE_ES256), "fido_cred_set_type")
        expect(fido_cred_set_clientdata_hash(cred, clientDataHash, clientDataHash.count), "set clientdata hash")
        expect(fido_cred_set_rp(cred, rpID, "Example"), "fido_cred_set_rp")
        expect(fido_cred_set_user(cred, userID, userID.count, "alice", "Alice", nil), "fido_cred_set_user")
        expect(fido_cred_set_rk(cred, FIDO_OPT_TRUE), "fido_cred_set_rk")
        expect(
            fido_cred_set_extensions(cred, FIDO_EXT_HMAC_SECRET | FIDO_EXT_CRED_PROTECT | FIDO_EXT_LARGEBLOB_KEY),
            "set extensions")
        expect(fido_cred_set_prot(cred, FIDO_CRED_PROT_UV_OPTIONAL_WITH_ID), "fido_cred_set_prot")
        expect(fido_dev_make_cred(dev, cred, pin), "fido_dev_make_cred")
        let id = Array(UnsafeBufferPointer(start: fido_cred_id_ptr(cred), count: fido_cred_id_len(cred)))
        let keyLength = fido_cred_largeblob_key_len(cred)
        let key =
            keyLength > 0 ? Array(UnsafeBufferPointer(start: fido_cred_largeblob_key_ptr(cred), count: keyLength)) : nil
        return (id, key)
    }

    private func getAssertion(allow: [UInt8]?) {
        guard let assert = fido_assert_new() else { fatalError("fido_assert_new: out of memory") }
        var owned: OpaquePointer? = assert
        defer { fido_assert_free(&owned) }
        expect(fido_assert_set_rp(assert, rpID), "fido_assert_set_rp")
        expect(fido_assert_set_clientdata_hash(assert, clientDataHash, clientDataHash.count), "set clientdata hash")
        if let allow { expect(fido_assert_allow_cred(assert, allow, allow.count), "fido_assert_allow_cred") }
        let salt = [UInt8](repeating: 0x11, count: 32)
        expect(fido_assert_set_extensions(assert, FIDO_EXT_HMAC_SECRET), "set extensions")
        expect(fido_assert_set_hmac_salt(assert, salt, salt.count), "fido_assert_set_hmac_salt")
        expect(fido_dev_get_assert(dev, assert, pin), "fido_dev_get_assert")
    }

    private func expect(_ status: Int32, _ what: String) {
        guard status == FIDO_OK else { fatalError("\(what): \(String(cString: fido_strerr(status)))") }
    }
}
