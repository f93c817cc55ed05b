import FIDO
import WebAuthn

/// `passkeys`, `passkey-delete`, `passkey-rename`: the key's credential management (CTAP 2.1 §6.8, or the 2.1-PRE
/// command), each with the PIN; a deletion also waits for a touch of the key once the PIN is accepted.
extension KeyOperation {
    func listPasskeys(on device: Device) throws(WebAuthnError) -> JSONValue {
        try requirePasskeyManagement(device)
        return try withPIN(on: device) { (device, pin) throws(FIDOError) in
            let slots = try device.passkeySlots(pin: pin)
            return KeyReport.passkeys(try device.passkeys(pin: pin), used: slots.used, left: slots.remaining)
        }
    }

    func deletePasskey(on device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        let credentialID = try Self.bytes(frame, "credentialId")
        try requirePasskeyManagement(device)
        try withPIN(on: device) { (device, pin) throws(FIDOError) in
            _ = try device.passkeySlots(pin: pin)  // a wrong PIN is asked again before the touch, not after
            try confirmOnTheKey(device)
            try device.deletePasskey(credentialID: credentialID, pin: pin)
        }
        return .string(Base64URL.encode(credentialID))
    }

    func renamePasskey(on device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        let credentialID = try Self.bytes(frame, "credentialId")
        let userID = try Self.bytes(frame, "userId")
        let name = try Self.name(frame, "name")
        let displayName = try Self.name(frame, "displayName")
        try requirePasskeyManagement(device)
        guard device.info.options["credMgmt"] == true else {
            throw WebAuthnError(
                name: .notSupported,
                message: "This key has only the CTAP 2.1 preview of credential management, which cannot rename a "
                    + "passkey. Rename the account on the site instead.")
        }
        try withPIN(on: device) { (device, pin) throws(FIDOError) in
            try device.renamePasskey(
                credentialID: credentialID, userID: userID, name: name, displayName: displayName, pin: pin)
        }
        return .string(Base64URL.encode(credentialID))
    }

    /// A touch of the key after the page's confirmation: where no page can answer for the user (`touch` status).
    func confirmOnTheKey(_ device: Device) throws(FIDOError) {
        environment.replies.status(controller.id, .touch)
        _ = try TouchSelection.waitForTouch(
            on: [device], deadline: .after(Self.userTimeout), isCancelled: { controller.isCancelled })
        environment.replies.updateNotice(controller.id, .processing)
    }

    private func requirePasskeyManagement(_ device: Device) throws(WebAuthnError) {
        guard device.isFIDO2, device.supportsCredentialManagement else {
            throw WebAuthnError(
                name: .notSupported,
                message: "This key has no credential management (a CTAP 2.0 or U2F key): it cannot list or delete its "
                    + "passkeys. Remove them in the sites' account settings; a reset deletes them all.")
        }
    }
}
