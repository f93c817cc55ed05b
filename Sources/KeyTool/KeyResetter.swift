import FIDO

#if canImport(Glibc)
import Glibc
#endif

/// `webauthn-bridge key reset`: authenticatorReset, which deletes every passkey, the PIN and the fingerprints.
///
/// CTAP lets a key take it only within about 10 seconds of being plugged in, and only after a touch. The reset is
/// tried at once (a key plugged in just before, or a SoftToken loaded for this command, takes it); a key that
/// refuses as plugged in too long is waited for while its owner unplugs it and plugs it in again, then reset.
public struct KeyResetter: Sendable {
    let access: KeyAccess
    /// How long to wait for each of the unplugging and the plugging in.
    let replugWait: Duration

    public init(access: KeyAccess, replugWait: Duration = .seconds(60)) {
        self.access = access
        self.replugWait = replugWait
    }

    /// Resets the key after `confirm` approved it (false: nothing done). `say` shows what the owner must do next.
    public func reset(confirm: (DeviceLocation) -> Bool, say: @escaping @Sendable (String) -> Void) throws -> Bool {
        try access.withDevice { device in
            guard device.isFIDO2 else {
                throw KeyToolError("This key speaks only U2F: it has no FIDO2 reset. Its maker's tool resets it.")
            }
        }
        guard confirm(access.location) else { return false }
        do {
            try resetTouching(access.location, say: say)
        } catch let error as FIDOError where error.code == FIDOError.notAllowed {
            say(
                "The key takes a reset only in the first 10 seconds after it is plugged in. Unplug it and plug it "
                    + "in again now.")
            let replugged = try waitForReplug(of: access.location, say: say)
            do { try resetTouching(replugged, say: say) } catch let error as FIDOError {
                if error.code == FIDOError.notAllowed {
                    throw KeyToolError(
                        "The key still refused: run `webauthn-bridge key reset` within 10 seconds of plugging it in.")
                }
                throw KeyToolError.fido(error, attemptsLeft: nil)
            }
        } catch let error as FIDOError {
            throw KeyToolError.fido(error, attemptsLeft: nil)
        }
        return true
    }

    private func resetTouching(_ location: DeviceLocation, say: @escaping @Sendable (String) -> Void) throws {
        try access.ring.withDevice(location) { device in
            say("Touch your security key to confirm the reset.")
            try device.reset()
        }
    }

    /// The key back after it was pulled out: a key at a path that was not there while it was out.
    private func waitForReplug(of location: DeviceLocation, say: (String) -> Void) throws -> DeviceLocation {
        guard let others = poll(until: { keys in keys.contains { $0.path == location.path } ? nil : keys }) else {
            throw KeyToolError(
                "The key was not unplugged within \(replugWait): nothing was changed. Run `webauthn-bridge key "
                    + "reset` again.")
        }
        say("The key is out: plug it in again.")
        let known = Set(others.map(\.path))
        guard let back = poll(until: { keys in keys.first { !known.contains($0.path) } }) else {
            throw KeyToolError(
                "No key was plugged in again within \(replugWait): nothing was changed. Plug it in and run "
                    + "`webauthn-bridge key reset` at once.")
        }
        return back
    }

    /// The keys as listed once `found` returns something, checked every 100 ms until `replugWait` passes.
    private func poll<T>(until found: ([DeviceLocation]) -> T?) -> T? {
        let end = ContinuousClock.now + replugWait
        while ContinuousClock.now < end {
            if let result = found(access.ring.locations()) { return result }
            usleep(100_000)
        }
        return nil
    }
}
