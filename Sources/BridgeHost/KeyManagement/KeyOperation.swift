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
        case .manage, .keyInfo: return ("key", KeyReport.info(device))
        case .passkeys: return ("passkeys", try listPasskeys(on: device))
        case .passkeyDelete: return ("deleted", try deletePasskey(on: device, frame: frame))
        case .passkeyRename: return ("renamed", try renamePasskey(on: device, frame: frame))
        case .pinSet: return ("key", try setPIN(on: device))
        case .pinChange: return ("key", try changePIN(on: device))
        case .keyReset: return ("key", try reset(device))
        case .keyConfig: return ("key", try configure(device, frame: frame))
        case .fingerprints: return ("fingerprints", try listFingerprints(on: device))
        case .fingerprintRename: return ("renamed", try renameFingerprint(on: device, frame: frame))
        case .fingerprintDelete: return ("deleted", try deleteFingerprint(on: device, frame: frame))
        case .fingerprintAdd: return ("added", try addFingerprint(on: device, frame: frame))
        }
    }

    /// The PIN steps of a ceremony (statuses, asking again after a wrong PIN, the prompt's failures), for the key.
    var verifier: UserVerificationRunner {
        environment.verifier(controller: controller, rpID: Self.promptSite, origin: Self.promptOrigin)
    }

    /// The key's facts read again after a change (getInfo: PIN set, alwaysUv, minimum length), for the page to show.
    func infoAfterChange(_ device: Device) -> JSONValue {
        KeyReport.info(device, fresh: try? device.readInfo())
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

    /// Runs `body` with the key's PIN (asked again after a wrong one), after checking the key has one to ask for.
    func withPIN<T>(on device: Device, _ body: (Device, SecretBytes) throws(FIDOError) -> T) throws(WebAuthnError)
        -> T
    {
        guard device.hasPIN else {
            throw WebAuthnError(
                name: .notAllowed, message: "The key has no PIN yet, and this needs one: create one first.")
        }
        guard !device.info.forcePINChange else {
            throw WebAuthnError(
                name: .notAllowed, message: "The key asks for a new PIN before anything else: change its PIN first.")
        }
        return try verifier.run(on: device, method: .pin, deadline: .after(Self.userTimeout), announcing: []) {
            (pin, _) throws(FIDOError) -> T in
            guard let pin else { throw FIDOError(code: FIDOError.pinRequired, function: "key management") }
            return try body(device, pin)
        }
    }

    /// A base64url member of the frame, as bytes.
    static func bytes(_ frame: JSONValue, _ member: String) throws(WebAuthnError) -> [UInt8] {
        guard let text = frame[member]?.stringValue, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw WebAuthnError(name: .typeError, message: "The request's \"\(member)\" is not base64url.")
        }
        return bytes
    }

    /// A user name or display name: a string within CTAP's 64-byte limit for them, or absent (the key removes it).
    static func name(_ frame: JSONValue, _ member: String) throws(WebAuthnError) -> String? {
        guard let value = frame[member], value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= 64 else {
            throw WebAuthnError(
                name: .typeError, message: "The request's \"\(member)\" is not a string of 64 bytes or less.")
        }
        return text.isEmpty ? nil : text
    }
}
