import FIDO
import Secrets
import Threading
import WebAuthn

/// One key-management request on the libfido2 thread: the key the page named (by the path `info` lists), opened,
/// its PIN asked through the ceremonies' prompt (`pin` status, asked again after a wrong one, never for a blocked
/// PIN: `UserVerificationRunner`), a touch before anything is deleted (`touch` status), then FIDO's credential
/// management. The PIN goes from the prompt to libfido2 only; no frame carries it.
struct KeyOperation {
    let environment: CeremonyEnvironment
    let controller: CeremonyController
    let devices: any DeviceProvider

    /// How long an operation waits for the user (PIN entry, touch): a ceremony's default timeout.
    static let userTimeout: Duration = .milliseconds(Timeouts.defaultMilliseconds)

    /// The answer's member name and value.
    func run(_ type: KeyRequestType, frame: JSONValue) throws(WebAuthnError) -> (String, JSONValue) {
        let device = try open(frame["device"]?.stringValue)
        defer { device.close() }
        switch type {
        case .manage, .keyInfo:
            return ("key", KeyReport.info(device))
        case .passkeys:
            let listing = try withPIN(on: device, needsPasskeys: true) { (device, pin) throws(FIDOError) in
                let slots = try device.passkeySlots(pin: pin)
                return KeyReport.passkeys(try device.passkeys(pin: pin), used: slots.used, left: slots.remaining)
            }
            return ("passkeys", listing)
        case .passkeyDelete:
            let credentialID = try Self.bytes(frame, "credentialId")
            try withPIN(on: device, needsPasskeys: true) { (device, pin) throws(FIDOError) in
                _ = try device.passkeySlots(pin: pin)  // a wrong PIN is asked again before the touch, not after
                // Confirmed in the page; now on the key, where no page can answer for the user.
                environment.replies.status(controller.id, .touch)
                _ = try TouchSelection.waitForTouch(
                    on: [device], deadline: .after(Self.userTimeout), isCancelled: { controller.isCancelled })
                environment.replies.updateNotice(controller.id, .processing)
                try device.deletePasskey(credentialID: credentialID, pin: pin)
            }
            return ("deleted", .string(Base64URL.encode(credentialID)))
        case .passkeyRename:
            let credentialID = try Self.bytes(frame, "credentialId")
            let userID = try Self.bytes(frame, "userId")
            let name = try Self.name(frame, "name")
            let displayName = try Self.name(frame, "displayName")
            guard device.info.options["credMgmt"] == true else {
                throw WebAuthnError(
                    name: .notSupported,
                    message: "This key has only the CTAP 2.1 preview of credential management, which cannot rename a "
                        + "passkey. Rename the account on the site instead.")
            }
            try withPIN(on: device, needsPasskeys: true) { (device, pin) throws(FIDOError) in
                try device.renamePasskey(
                    credentialID: credentialID, userID: userID, name: name, displayName: displayName, pin: pin)
            }
            return ("renamed", .string(Base64URL.encode(credentialID)))
        }
    }

    /// The key at `path`, among those plugged in now.
    private func open(_ path: String?) throws(WebAuthnError) -> Device {
        guard let path else { throw WebAuthnError(name: .typeError, message: "The request names no \"device\".") }
        guard let location = devices.locations().first(where: { $0.path == path }) else {
            throw WebAuthnError(
                name: .notAllowed, message: "The security key \(path) is no longer plugged in. Plug it in and retry.")
        }
        do { return try Device.open(location) } catch {
            environment.log.warn("cannot open \(path): \(error)", request: controller.id)
            throw WebAuthnError(
                name: .notAllowed,
                message:
                    "The security key \(path) could not be opened (\(error.codeName)). Run `webauthn-bridge doctor`.")
        }
    }

    /// Runs `body` with the key's PIN, after checking the key can do what is asked without one being typed in vain.
    private func withPIN<T>(
        on device: Device, needsPasskeys: Bool, _ body: (Device, SecretBytes) throws(FIDOError) -> T
    ) throws(WebAuthnError) -> T {
        if needsPasskeys, !(device.isFIDO2 && device.supportsCredentialManagement) {
            throw WebAuthnError(
                name: .notSupported,
                message: "This key has no credential management (a CTAP 2.0 or U2F key): it cannot list or delete its "
                    + "passkeys. Remove them in the sites' account settings; a reset deletes them all.")
        }
        guard device.hasPIN else {
            throw WebAuthnError(name: .notAllowed, message: "The key has no PIN, and managing its passkeys needs one.")
        }
        let verifier = environment.verifier(
            controller: controller, rpID: "your security key", origin: "the webauthn-bridge Security keys page")
        return try verifier.run(on: device, method: .pin, deadline: .after(Self.userTimeout), announcing: []) {
            (pin, _) throws(FIDOError) -> T in
            guard let pin else { throw FIDOError(code: FIDOError.pinRequired, function: "key management") }
            return try body(device, pin)
        }
    }

    /// A base64url member of the frame, as bytes.
    private static func bytes(_ frame: JSONValue, _ member: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = frame[member]?.stringValue, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw WebAuthnError(name: .typeError, message: "The request's \"\(member)\" is not base64url.")
        }
        return bytes
    }

    /// A user name or display name: a string within CTAP's 64-byte limit for them, or absent (the key removes it).
    private static func name(_ frame: JSONValue, _ member: String) throws(WebAuthnError) -> String? {
        guard let value = frame[member], value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= 64 else {
            throw WebAuthnError(
                name: .typeError, message: "The request's \"\(member)\" is not a string of 64 bytes or less.")
        }
        return text.isEmpty ? nil : text
    }
}
