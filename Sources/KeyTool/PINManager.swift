import FIDO
import Prompts
import Secrets

/// `webauthn-bridge key pin set|change`: the key's PIN, asked through the prompt, the new one twice.
public struct PINManager: Sendable {
    let access: KeyAccess

    public init(access: KeyAccess) { self.access = access }

    /// Sets the first PIN of a key that has none.
    public func set() throws {
        let prompt = access.prompt
        try access.withDevice { device in
            try Self.checkHasClientPIN(device)
            guard !device.hasPIN else {
                throw KeyToolError("The key already has a PIN. Change it with `webauthn-bridge key pin change`.")
            }
            let pin = try KeyAccess.readNewPIN(
                prompt, device: device, reason: "You are setting the first PIN of your security key.")
            do { try device.setPIN(pin) } catch let error as FIDOError {
                throw KeyToolError.fido(error, attemptsLeft: nil)
            }
        }
    }

    /// Changes the PIN: the current one first, then the new one twice. Also what a key asking for a new PIN
    /// (forcePINChange) needs.
    public func change() throws {
        let prompt = access.prompt
        try access.withDevice { device in
            try Self.checkHasClientPIN(device)
            guard device.hasPIN else {
                throw KeyToolError("The key has no PIN yet. Set one with `webauthn-bridge key pin set`.")
            }
            let retries = try? device.pinRetries()
            let current = try prompt.readPIN(KeyAccess.pinRequest(attemptsLeft: retries))
            let new = try KeyAccess.readNewPIN(
                prompt, device: device, reason: "You are changing the PIN of your security key.")
            do { try device.changePIN(from: current, to: new) } catch let error as FIDOError {
                throw KeyToolError.fido(error, attemptsLeft: retries)
            }
        }
    }

    private static func checkHasClientPIN(_ device: Device) throws {
        guard device.isFIDO2 else { throw KeyToolError.u2fOnly }
        guard device.info.supportsClientPIN else { throw KeyToolError.lacks("cannot have a PIN") }
    }
}
