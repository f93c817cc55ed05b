import CFIDO2
import Glibc

extension Device {
    /// What fido_dev_largeblob_get returns when the array has no entry for the key (libfido2's internal
    /// FIDO_ERR_NOT_FOUND, absent from the 1.12 public headers).
    static let largeBlobNotFound: Int32 = -10

    /// Reads the blob stored for a credential's largeBlobKey (nil when the key holds none for it).
    public func largeBlob(forKey key: [UInt8]) throws(FIDOError) -> [UInt8]? {
        var blob: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = key.withUnsafeBufferPointer { fido_dev_largeblob_get(handle, $0.baseAddress, $0.count, &blob, &length) }
        defer { free(blob) }
        if status == Self.largeBlobNotFound { return nil }
        try FIDOError.check(status, "fido_dev_largeblob_get")
        return Self.bytes(blob, length)
    }

    /// Stores `blob` for a credential's largeBlobKey; the key needs a PIN/UV token with the largeBlobWrite
    /// permission, which libfido2 obtains with `pin` (nil on a key without a PIN).
    public func setLargeBlob(_ blob: [UInt8], forKey key: [UInt8], pin: PINCode?) throws(FIDOError) {
        let status: Int32 = key.withUnsafeBufferPointer { k in
            blob.withUnsafeBufferPointer { b in
                if let pin {
                    return pin.withCString { p in fido_dev_largeblob_set(handle, k.baseAddress, k.count, b.baseAddress, b.count, p) }
                }
                return fido_dev_largeblob_set(handle, k.baseAddress, k.count, b.baseAddress, b.count, nil)
            }
        }
        try FIDOError.check(status, "fido_dev_largeblob_set")
    }
}
