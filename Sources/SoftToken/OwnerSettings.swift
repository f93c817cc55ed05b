#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the key's owner changed through CTAP commands, kept apart from the configuration the token was created
/// with, so authenticatorReset brings the maker's values back by dropping it: alwaysUv and the minimum PIN length
/// (authenticatorConfig), a forced PIN change, the current PIN's length, and the enrolled fingerprints
/// (authenticatorBioEnrollment).
struct OwnerSettings: Codable, Sendable, Equatable {
    /// alwaysUv as toggled (nil: the configuration's).
    var alwaysUV: Bool?
    /// The minimum PIN length as raised (nil: the configuration's).
    var minPINLength: Int?
    /// RP IDs added to the configuration's as allowed to read the minimum PIN length.
    var minPINLengthRPIDs: [String] = []
    /// getInfo forcePINChange: the PIN is refused until it is changed.
    var forcePINChange = false
    /// The current PIN's length in code points (to force a change when the minimum rises above it); nil when
    /// unknown (a PIN set before the token kept it, which counts as too short).
    var pinLength: Int?
    var fingerprints: [EnrolledFingerprint] = []

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        alwaysUV = try c.decodeIfPresent(Bool.self, forKey: .alwaysUV)
        minPINLength = try c.decodeIfPresent(Int.self, forKey: .minPINLength)
        minPINLengthRPIDs = try c.decodeIfPresent([String].self, forKey: .minPINLengthRPIDs) ?? []
        forcePINChange = try c.decodeIfPresent(Bool.self, forKey: .forcePINChange) ?? false
        pinLength = try c.decodeIfPresent(Int.self, forKey: .pinLength)
        fingerprints = try c.decodeIfPresent([EnrolledFingerprint].self, forKey: .fingerprints) ?? []
    }
}

/// One enrolled finger of the simulated fingerprint reader.
struct EnrolledFingerprint: Codable, Sendable, Equatable {
    var templateID: Data
    var name: String?
}

extension TokenState {
    /// The owner's settings; absent from the file while they are all the configuration's.
    var settings: OwnerSettings {
        get { ownerSettings ?? OwnerSettings() }
        set { ownerSettings = newValue == OwnerSettings() ? nil : newValue }
    }
}

extension SoftToken {
    var alwaysUV: Bool { state.settings.alwaysUV ?? state.configuration.alwaysUV }
    var minPINLength: Int { state.settings.minPINLength ?? state.configuration.minPINLength }
    var minPINLengthRPIDs: [String] { state.configuration.minPINLengthRPIDs + state.settings.minPINLengthRPIDs }

    /// Built-in UV that can verify someone: a reader with a finger enrolled (or a token whose UV needs no
    /// enrollment). CTAP's getInfo "uv" is false while a reader has no finger.
    var hasBuiltInUVConfigured: Bool {
        state.configuration.builtInUV && (!hasAnyBioEnrollment || !state.settings.fingerprints.isEmpty)
    }
}
