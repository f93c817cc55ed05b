import CFIDO2
import Secrets

/// One discoverable credential (passkey) as the key's credential management lists it. Holds no secret: the
/// largeBlobKey is only noted as present.
public struct StoredPasskey: Sendable, Equatable {
    public var rpID: String
    public var rpName: String?
    public var credentialID: [UInt8]
    public var userID: [UInt8]
    public var userName: String?
    public var userDisplayName: String?
    /// credProtect level 1–3 (CTAP 2.1 §12.1); 0 when the key does not say.
    public var credProtect: Int
    public var hasLargeBlobKey: Bool
}

/// authenticatorCredentialManagement (CTAP 2.1 §6.8, or the 2.1-PRE command where a key has only that) through
/// libfido2's fido_credman_* API. Every call gets its own pinUvAuthToken with the `cm` permission from `pin`.
extension Device {
    /// Whether the key has credential management (getInfo option credMgmt or credentialMgmtPreview).
    public var supportsCredentialManagement: Bool { fido_dev_supports_credman(handle) }

    /// How many passkeys the key holds and how many more fit.
    public func passkeySlots(pin: SecretBytes) throws(FIDOError) -> (used: Int, remaining: Int) {
        guard let metadata = fido_credman_metadata_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_credman_metadata_new")
        }
        var owned: OpaquePointer? = metadata
        defer { fido_credman_metadata_free(&owned) }
        try pin.withCString { (p) throws(FIDOError) in
            try FIDOError.check(fido_credman_get_dev_metadata(handle, metadata, p), "fido_credman_get_dev_metadata")
        }
        return (Int(fido_credman_rk_existing(metadata)), Int(fido_credman_rk_remaining(metadata)))
    }

    /// Every passkey on the key, by relying party in the key's order.
    public func passkeys(pin: SecretBytes) throws(FIDOError) -> [StoredPasskey] {
        guard let rps = fido_credman_rp_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_credman_rp_new")
        }
        var ownedRPs: OpaquePointer? = rps
        defer { fido_credman_rp_free(&ownedRPs) }
        // A key without passkeys answers enumerateRPsBegin with CTAP2_ERR_NO_CREDENTIALS (§6.8.3).
        let status = pin.withCString { fido_credman_get_dev_rp(handle, rps, $0) }
        if status == FIDO_ERR_NO_CREDENTIALS { return [] }
        try FIDOError.check(status, "fido_credman_get_dev_rp")
        var found: [StoredPasskey] = []
        for index in 0..<fido_credman_rp_count(rps) {
            guard let rpIDPointer = fido_credman_rp_id(rps, index) else { continue }
            let rpID = String(cString: rpIDPointer)
            let rpName = fido_credman_rp_name(rps, index).map { String(cString: $0) }
            found += try passkeys(rpID: rpID, rpName: rpName, pin: pin)
        }
        return found
    }

    private func passkeys(rpID: String, rpName: String?, pin: SecretBytes) throws(FIDOError) -> [StoredPasskey] {
        guard let rk = fido_credman_rk_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_credman_rk_new")
        }
        var owned: OpaquePointer? = rk
        defer { fido_credman_rk_free(&owned) }
        try pin.withCString { (p) throws(FIDOError) in
            try FIDOError.check(fido_credman_get_dev_rk(handle, rpID, rk, p), "fido_credman_get_dev_rk")
        }
        return (0..<fido_credman_rk_count(rk)).compactMap { index in
            guard let cred = fido_credman_rk(rk, index) else { return nil }
            return StoredPasskey(
                rpID: rpID, rpName: rpName,
                credentialID: Self.bytes(fido_cred_id_ptr(cred), fido_cred_id_len(cred)),
                userID: Self.bytes(fido_cred_user_id_ptr(cred), fido_cred_user_id_len(cred)),
                userName: fido_cred_user_name(cred).map { String(cString: $0) },
                userDisplayName: fido_cred_display_name(cred).map { String(cString: $0) },
                credProtect: Int(fido_cred_prot(cred)), hasLargeBlobKey: fido_cred_largeblob_key_len(cred) > 0)
        }
    }

    /// Deletes one passkey; the key answers FIDO_ERR_NO_CREDENTIALS when it holds no passkey with that ID.
    public func deletePasskey(credentialID: [UInt8], pin: SecretBytes) throws(FIDOError) {
        try pin.withCString { (p) throws(FIDOError) in
            let status = credentialID.withUnsafeBufferPointer {
                fido_credman_del_dev_rk(handle, $0.baseAddress, $0.count, p)
            }
            try FIDOError.check(status, "fido_credman_del_dev_rk")
        }
    }
}

extension Device {
    /// updateUserInformation (CTAP 2.1 §6.8.6): replaces the passkey's user name and display name (nil removes
    /// one). `userID` must be the passkey's own: the key refuses a different one.
    public func renamePasskey(
        credentialID: [UInt8], userID: [UInt8], name: String?, displayName: String?, pin: SecretBytes
    ) throws(FIDOError) {
        guard let cred = fido_cred_new() else { throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_cred_new") }
        var owned: OpaquePointer? = cred
        defer { fido_cred_free(&owned) }
        try FIDOError.check(
            credentialID.withUnsafeBufferPointer { fido_cred_set_id(cred, $0.baseAddress, $0.count) },
            "fido_cred_set_id")
        try FIDOError.check(
            userID.withUnsafeBufferPointer {
                fido_cred_set_user(cred, $0.baseAddress, $0.count, name, displayName, nil)
            }, "fido_cred_set_user")
        try pin.withCString { (p) throws(FIDOError) in
            try FIDOError.check(fido_credman_set_dev_rk(handle, cred, p), "fido_credman_set_dev_rk")
        }
    }
}
