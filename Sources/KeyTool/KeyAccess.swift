import FIDO
import Prompts
import Secrets

/// One key as a `webauthn-bridge key` command reaches it: opened on the libfido2 thread and closed afterwards, its
/// PIN asked through the same prompt as in ceremonies (pinentry, else the terminal), never taken from an argument.
/// Every failure comes out as a `KeyToolError` that says what to do next.
public struct KeyAccess: Sendable {
    let ring: KeyRing
    public let location: DeviceLocation
    let prompt: any PINPrompt

    public init(ring: KeyRing, location: DeviceLocation, prompt: any PINPrompt) {
        self.ring = ring
        self.location = location
        self.prompt = prompt
    }

    /// Runs `body` with the key open.
    func withDevice<T: Sendable>(_ body: @escaping @Sendable (Device) throws -> T) throws -> T {
        do {
            return try ring.withDevice(location, body)
        } catch let error as FIDOError {
            throw KeyToolError.fido(error, attemptsLeft: nil)
        } catch let error as PromptError {
            throw KeyToolError.prompt(error)
        }
    }

    /// Runs `check` on the open key, asks for its PIN and runs `body` with it. A wrong PIN's message counts the
    /// attempts left. A key that asks for a new PIN first (forcePINChange) is sent to `key pin change`.
    func withPIN<T: Sendable>(
        check: @escaping @Sendable (Device) throws -> Void = { _ in },
        _ body: @escaping @Sendable (Device, SecretBytes) throws -> T
    ) throws -> T {
        let prompt = prompt
        return try withDevice { device in
            try check(device)
            guard device.hasPIN else { throw KeyToolError.noPIN }
            guard !device.info.forcePINChange else { throw KeyToolError.pinChangeRequired }
            let retries = try? device.pinRetries()
            let pin = try prompt.readPIN(Self.pinRequest(attemptsLeft: retries))
            do { return try body(device, pin) } catch let error as FIDOError {
                throw KeyToolError.fido(error, attemptsLeft: retries)
            }
        }
    }

    /// The key's PIN if it has one, nil (nothing asked) if it has none.
    func withOptionalPIN<T: Sendable>(
        check: @escaping @Sendable (Device) throws -> Void = { _ in },
        _ body: @escaping @Sendable (Device, SecretBytes?) throws -> T
    ) throws -> T {
        let needsPIN = try withDevice { $0.hasPIN }
        if needsPIN { return try withPIN(check: check) { device, pin in try body(device, pin) } }
        return try withDevice { device in
            try check(device)
            do { return try body(device, nil) } catch let error as FIDOError {
                throw KeyToolError.fido(error, attemptsLeft: nil)
            }
        }
    }

    static func pinRequest(attemptsLeft: Int?) -> PINRequest {
        PINRequest(rpID: "your security key", origin: "webauthn-bridge key", attemptsLeft: attemptsLeft)
    }

    /// Asks for a new PIN twice, at least the key's minimum long.
    static func readNewPIN(_ prompt: any PINPrompt, device: Device, reason: String) throws(PromptError) -> SecretBytes {
        try prompt.readNewPIN(
            NewPINRequest(
                rpID: "your security key", origin: "webauthn-bridge key",
                minimumLength: max(device.info.minPINLength, 4), reason: reason))
    }
}
