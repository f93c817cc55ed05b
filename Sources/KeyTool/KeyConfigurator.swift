import FIDO
import Secrets

/// `webauthn-bridge key config`: the key's authenticatorConfig settings (CTAP 2.1 §6.11).
public struct KeyConfigurator: Sendable {
    let access: KeyAccess

    public init(access: KeyAccess) { self.access = access }

    /// Turns always-UV on or off; false when it already was (nothing changed).
    public func setAlwaysUV(_ enabled: Bool) throws -> Bool {
        try access.withOptionalPIN(
            check: { device in
                guard device.supportsAlwaysUV else {
                    throw KeyToolError.lacks(
                        "has no authenticatorConfig (a CTAP 2.0 key, or one made before CTAP 2.1): it cannot turn "
                            + "always-UV on or off")
                }
            }, { device, pin in try device.setAlwaysUV(enabled, pin: pin) })
    }

    /// What `min-pin-length` did: the key's minimum now, and whether its PIN must now be changed.
    public struct MinimumPINLength: Sendable {
        public let length: Int
        public let pinChangeRequired: Bool
    }

    /// Raises the minimum PIN length to `length` and lets `rpIDs` read it when they register.
    public func setMinimumPINLength(_ length: Int, rpIDs: [String]) throws -> MinimumPINLength {
        try access.withPIN(check: Self.checkMinPINLength) { device, pin in
            let current = device.info.minPINLength
            guard length >= current else {
                throw KeyToolError(
                    "The key's minimum PIN length is already \(current); a key can only raise it (a reset brings "
                        + "back the maker's).")
            }
            guard length <= 63 else { throw KeyToolError("A PIN has at most 63 bytes: give a length up to 63.") }
            if length > current { try device.setMinimumPINLength(length, pin: pin) }
            if !rpIDs.isEmpty { try device.allowMinimumPINLength(to: rpIDs, pin: pin) }
            let info = try device.readInfo()
            return MinimumPINLength(length: info.minPINLength, pinChangeRequired: info.forcePINChange)
        }
    }

    /// Makes the key ask for a new PIN before its next use.
    public func forcePINChange() throws {
        try access.withPIN(check: Self.checkMinPINLength) { device, pin in try device.forcePINChange(pin: pin) }
    }

    private static func checkMinPINLength(_ device: Device) throws {
        guard device.supportsMinPINLength else {
            throw KeyToolError.lacks(
                "has no authenticatorConfig setMinPINLength (a CTAP 2.0 key, or one made before CTAP 2.1): it "
                    + "cannot change its PIN rules")
        }
    }
}
