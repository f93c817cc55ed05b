import FIDO
import Secrets

/// `webauthn-bridge key passkeys`: the key's passkeys and slots through its credential management.
///
/// Each command opens the key once and asks for the PIN once; libfido2 gets a fresh pinUvAuthToken with the `cm`
/// permission for every call it makes.
public struct PasskeyManager: Sendable {
    let access: KeyAccess

    public init(access: KeyAccess) { self.access = access }

    /// Every passkey and the slots used and left.
    public func list() throws -> PasskeyReport {
        try withPIN { device, pin in
            let slots = try device.passkeySlots(pin: pin)
            return PasskeyReport(passkeys: try device.passkeys(pin: pin), used: slots.used, remaining: slots.remaining)
        }
    }

    /// Deletes the passkey with this credential ID after `confirm` approved what it is; returns it.
    /// `confirm` runs on the caller's side of the prompt (the terminal), with the passkey found on the key.
    public func delete(credentialID: [UInt8], confirm: @escaping @Sendable (StoredPasskey) -> Bool) throws
        -> StoredPasskey?
    {
        try withPIN { device, pin in
            let passkey = try Self.find(credentialID, on: device, pin: pin)
            guard confirm(passkey) else { return nil }
            try device.deletePasskey(credentialID: credentialID, pin: pin)
            return passkey
        }
    }

    /// Renames the passkey with this credential ID: a nil `name` or `displayName` keeps the current one.
    /// Returns the passkey as it was.
    public func rename(credentialID: [UInt8], name: String?, displayName: String?) throws -> StoredPasskey {
        try withPIN { device, pin in
            guard device.info.options["credMgmt"] == true else {
                throw KeyToolError(
                    "This key has only the CTAP 2.1 preview of credential management, which cannot rename a "
                        + "passkey. Rename the account on the site instead.")
            }
            let passkey = try Self.find(credentialID, on: device, pin: pin)
            try device.renamePasskey(
                credentialID: credentialID, userID: passkey.userID, name: name ?? passkey.userName,
                displayName: displayName ?? passkey.userDisplayName, pin: pin)
            return passkey
        }
    }

    private static func find(_ credentialID: [UInt8], on device: Device, pin: SecretBytes) throws -> StoredPasskey {
        guard let passkey = try device.passkeys(pin: pin).first(where: { $0.credentialID == credentialID }) else {
            throw FIDOError(code: FIDOError.noCredentials, function: "fido_credman_get_dev_rk")
        }
        return passkey
    }

    /// Checks the key can manage passkeys, then asks for its PIN.
    private func withPIN<T: Sendable>(_ body: @escaping @Sendable (Device, SecretBytes) throws -> T) throws -> T {
        try access.withPIN(
            check: { device in
                guard device.isFIDO2, device.supportsCredentialManagement else {
                    throw KeyToolError.lacks(
                        "has no credential management (a CTAP 2.0 or U2F key): it cannot list or delete its "
                            + "passkeys. Use the sites' own account settings to remove them; a reset deletes them all")
                }
            }, body)
    }
}
