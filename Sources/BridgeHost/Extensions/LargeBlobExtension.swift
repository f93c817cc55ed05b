import FIDO
import Secrets
import WebAuthn

/// `largeBlob` (WebAuthn L3 §10.1.5) over CTAP's largeBlobKey extension and the key's largeBlobs array.
///
/// Only discoverable credentials get a largeBlobKey (CTAP 2.1 §12.3). A read needs no PIN; a write needs a
/// pinUvAuthToken with the largeBlobWrite permission, which libfido2 1.12 gets from the PIN (or built-in UV),
/// so a write plans for user verification. Blob contents are the page's secrets and are never logged.
enum LargeBlobExtension {
    /// The key stores large blobs: option largeBlobs and the largeBlobKey extension.
    static func isSupported(_ info: AuthenticatorInfo) -> Bool {
        info.options["largeBlobs"] == true && info.extensions.contains("largeBlobKey")
    }

    /// Reads or writes the blob of the asserted credential; the `largeBlob` client output.
    /// A failed write is `written: false` (§10.1.5), not an error.
    static func perform(
        _ operation: AuthenticationExtensionInputs.LargeBlobOperation, key: [UInt8]?,
        on device: Device, pin: SecretBytes?, log: HostLog, request: String
    ) throws(FIDOError) -> JSONValue {
        switch operation {
        case .read:
            guard let key, key.count == 32 else { return .object([]) }
            do throws(FIDOError) {
                // libfido2 1.12 skips an entry whose original size is 0 (the host seals those itself).
                var found = try device.largeBlob(key: key)
                if found == nil { found = try storedBlob(key: key, on: device) }
                guard let blob = found else { return .object([]) }
                return .object([("blob", .binary(blob))])
            } catch {
                if error.code == FIDOError.keepaliveCancel { throw error }
                log.info("largeBlob read failed: \(error)", request: request)
                return .object([])
            }
        case .write(let blob):
            guard let key, key.count == 32 else { return .object([("written", false)]) }
            do throws(FIDOError) {
                do throws(FIDOError) {
                    // libfido2 refuses an empty blob outright (FIDO_ERR_INVALID_ARGUMENT).
                    if blob.isEmpty {
                        throw FIDOError(code: FIDOError.internalError, function: "fido_dev_largeblob_set")
                    }
                    try device.setLargeBlob(key: key, blob: blob, pin: pin)
                } catch  where error.code == FIDOError.internalError {
                    // libfido2 1.12 cannot seal blobs that deflate below 16 bytes; seal the entry here instead.
                    try writeSealedHere(blob, key: key, on: device, pin: pin)
                }
                return .object([("written", true)])
            } catch {
                if error.code == FIDOError.keepaliveCancel { throw error }
                log.info("largeBlob write failed: \(error)", request: request)
                return .object([("written", false)])
            }
        }
    }

    private static func storedBlob(key: [UInt8], on device: Device) throws(FIDOError) -> [UInt8]? {
        LargeBlobEntry.storedBlob(in: try device.largeBlobArray(), key: key)
    }

    private static func writeSealedHere(_ blob: [UInt8], key: [UInt8], on device: Device, pin: SecretBytes?)
        throws(FIDOError)
    {
        let current = try device.largeBlobArray()
        let updated: [UInt8]
        do { updated = try LargeBlobEntry.array(current, storing: blob, key: key) } catch {
            throw FIDOError(code: FIDOError.internalError, function: "LargeBlobEntry.array")
        }
        try device.setLargeBlobArray(updated, pin: pin)
    }
}
