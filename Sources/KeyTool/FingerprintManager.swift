import FIDO
import Secrets

/// `webauthn-bridge key fingerprints`: the fingers a key with a fingerprint reader knows, through its bio
/// enrollment. Template IDs are shown in hex, as `ykman fido fingerprints` shows them.
public struct FingerprintManager: Sendable {
    let access: KeyAccess

    public init(access: KeyAccess) { self.access = access }

    public func list() throws -> FingerprintReport {
        try withPIN { device, pin in FingerprintReport(fingerprints: try device.fingerprints(pin: pin)) }
    }

    /// Enrolls a finger: `onStart` runs once the PIN is accepted with the samples the key wants, `onSample` after
    /// each touch. Names it when `name` is given. Returns the new fingerprint.
    public func add(
        name: String?, onStart: @escaping @Sendable (Int) -> Void,
        onSample: @escaping @Sendable (FingerprintSample) -> Void
    ) throws -> Fingerprint {
        try withPIN { device, pin in
            onStart((try? device.fingerprintSamplesNeeded()) ?? 0)
            let id = try device.enrollFingerprint(pin: pin, onSample: onSample)
            if let name { try Self.rename(id, to: name, on: device, pin: pin) }
            return Fingerprint(templateID: id, name: name)
        }
    }

    /// Names the fingerprint with this template ID; returns it as it was.
    public func rename(templateID: [UInt8], name: String) throws -> Fingerprint {
        try withPIN { device, pin in
            let fingerprint = try Self.find(templateID, on: device, pin: pin)
            try Self.rename(templateID, to: name, on: device, pin: pin)
            return fingerprint
        }
    }

    /// Deletes the fingerprint with this template ID after `confirm` approved it; returns it (nil: not confirmed).
    public func delete(templateID: [UInt8], confirm: @escaping @Sendable (Fingerprint) -> Bool) throws -> Fingerprint? {
        try withPIN { device, pin in
            let fingerprint = try Self.find(templateID, on: device, pin: pin)
            guard confirm(fingerprint) else { return nil }
            try device.deleteFingerprint(templateID: templateID, pin: pin)
            return fingerprint
        }
    }

    /// A name longer than the key keeps (CTAP's maxTemplateFriendlyName, which libfido2 1.12 does not read) is
    /// INVALID_LENGTH.
    private static func rename(_ templateID: [UInt8], to name: String, on device: Device, pin: SecretBytes) throws {
        do { try device.renameFingerprint(templateID: templateID, name: name, pin: pin) } catch {
            guard error.code == FIDOError.invalidLength else { throw error }
            throw KeyToolError("The name is too long for the key (\(name.utf8.count) bytes): give a shorter one.")
        }
    }

    private static func find(_ templateID: [UInt8], on device: Device, pin: SecretBytes) throws -> Fingerprint {
        guard let found = try device.fingerprints(pin: pin).first(where: { $0.templateID == templateID }) else {
            throw KeyToolError(
                "The key has no fingerprint with that ID. List them with `webauthn-bridge key fingerprints`.")
        }
        return found
    }

    private func withPIN<T: Sendable>(_ body: @escaping @Sendable (Device, SecretBytes) throws -> T) throws -> T {
        try access.withPIN(
            check: { device in
                guard device.isFIDO2 else { throw KeyToolError.u2fOnly }
                guard device.supportsBioEnrollment else {
                    throw KeyToolError.lacks(
                        "has no fingerprint reader it can enroll fingers on (no bio enrollment in its getInfo)")
                }
            }, body)
    }
}
