import CFIDO2
import Glibc
import Secrets

/// The key's largeBlobs array (CTAP 2.1 §6.10), one entry per credential, sealed with the credential's
/// 32-byte largeBlobKey. libfido2 does the array parsing, AES-GCM and compression.
///
/// A blob is a secret of the page's: it is zeroed where libfido2's copy dies and never logged.
extension Device {
    /// The blob stored for `key`, or nil when the array holds none for it.
    public func largeBlob(key: [UInt8]) throws(FIDOError) -> [UInt8]? {
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = key.withUnsafeBufferPointer {
            fido_dev_largeblob_get(handle, $0.baseAddress, $0.count, &pointer, &length)
        }
        defer {
            if let pointer {
                explicit_bzero(pointer, length)
                free(pointer)
            }
        }
        if status == FIDO_ERR_NOTFOUND { return nil }
        try FIDOError.check(status, "fido_dev_largeblob_get")
        return Self.bytes(pointer, length)
    }

    /// Stores `blob` for `key`, replacing any earlier one. Writing needs a pinUvAuthToken with the
    /// largeBlobWrite permission: libfido2 1.12 gets one from `pin`, or from built-in UV when `pin` is nil.
    public func setLargeBlob(key: [UInt8], blob: [UInt8], pin: SecretBytes?) throws(FIDOError) {
        func set(_ p: UnsafePointer<CChar>?) -> Int32 {
            key.withUnsafeBufferPointer { k in
                blob.withUnsafeBufferPointer { b in
                    fido_dev_largeblob_set(handle, k.baseAddress, k.count, b.baseAddress, b.count, p)
                }
            }
        }
        if let pin {
            try pin.withCString { (p) throws(FIDOError) in try FIDOError.check(set(p), "fido_dev_largeblob_set") }
        } else {
            try FIDOError.check(set(nil), "fido_dev_largeblob_set")
        }
    }
}

extension Device {
    /// The serialized largeBlobs array as CBOR (libfido2 checks and strips the trailing hash).
    public func largeBlobArray() throws(FIDOError) -> [UInt8] {
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = fido_dev_largeblob_get_array(handle, &pointer, &length)
        defer {
            if let pointer {
                explicit_bzero(pointer, length)
                free(pointer)
            }
        }
        try FIDOError.check(status, "fido_dev_largeblob_get_array")
        return Self.bytes(pointer, length)
    }

    /// Replaces the whole largeBlobs array (CBOR); libfido2 appends the hash and gets the write token as in
    /// `setLargeBlob`.
    public func setLargeBlobArray(_ cbor: [UInt8], pin: SecretBytes?) throws(FIDOError) {
        func set(_ p: UnsafePointer<CChar>?) -> Int32 {
            cbor.withUnsafeBufferPointer { fido_dev_largeblob_set_array(handle, $0.baseAddress, $0.count, p) }
        }
        if let pin {
            try pin.withCString { (p) throws(FIDOError) in try FIDOError.check(set(p), "fido_dev_largeblob_set_array") }
        } else {
            try FIDOError.check(set(nil), "fido_dev_largeblob_set_array")
        }
    }
}
