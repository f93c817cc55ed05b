import FIDO
import Prompts
import Secrets

/// `webauthn-bridge key passkeys`: the key's passkeys and slots through its credential management, with the PIN
/// asked through the same prompt as in ceremonies (never taken from an argument).
///
/// Each command opens the key once and asks for the PIN once; libfido2 gets a fresh pinUvAuthToken with the `cm`
/// permission for every call it makes.
public struct PasskeyManager: Sendable {
    let ring: KeyRing
    let location: DeviceLocation
    let prompt: any PINPrompt

    public init(ring: KeyRing, location: DeviceLocation, prompt: any PINPrompt) {
        self.ring = ring
        self.location = location
        self.prompt = prompt
    }

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

    /// Checks the key can manage passkeys, asks for its PIN and runs `body` on the open key.
    private func withPIN<T: Sendable>(_ body: @escaping @Sendable (Device, SecretBytes) throws -> T) throws -> T {
        let prompt = prompt
        do {
            return try ring.withDevice(location) { device in
                guard device.isFIDO2, device.supportsCredentialManagement else {
                    throw KeyToolError(
                        "This key has no credential management (a CTAP 2.0 or U2F key): it cannot list or delete its "
                            + "passkeys. Use the sites' own account settings to remove them; a reset deletes them all.")
                }
                guard device.hasPIN else {
                    throw KeyToolError(
                        "The key has no PIN, and listing its passkeys needs one. Set one first (a browser's "
                            + "security-key settings or `ykman fido access change-pin`).")
                }
                let retries = try? device.pinRetries()
                let pin = try prompt.readPIN(
                    PINRequest(rpID: "your security key", origin: "webauthn-bridge key", attemptsLeft: retries))
                do { return try body(device, pin) } catch let error as FIDOError {
                    throw KeyToolError.fido(error, attemptsLeft: retries)
                }
            }
        } catch let error as FIDOError {
            throw KeyToolError.fido(error, attemptsLeft: nil)
        } catch let error as PromptError {
            if error == .cancelled { throw KeyToolError("PIN entry cancelled: nothing was changed.") }
            throw KeyToolError("\(error). Set WEBAUTHN_BRIDGE_PINENTRY to a pinentry program, or run in a terminal.")
        }
    }
}
