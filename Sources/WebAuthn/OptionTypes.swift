/// The small value types the options dictionaries are made of (§5.4.4–§5.4.6, §5.8.3, §5.10.3).
///
/// WebAuthn declares the enumerations as DOMString so that new values do not break old clients: an unknown value
/// is treated as if the member were absent. `init(member:)` returns nil for such values and the dictionary
/// conversion then applies the member's default.

public enum ResidentKeyRequirement: String, Sendable, Equatable {
    case discouraged, preferred, required
}

public enum UserVerificationRequirement: String, Sendable, Equatable {
    case discouraged, preferred, required
}

/// `enterprise` is read as `direct`: enterprise attestation needs a per-RP allow list in the browser's policy,
/// which a native host does not have, so the most it can honestly give is direct attestation.
public enum AttestationConveyance: String, Sendable, Equatable {
    case none, indirect, direct

    init?(member: String) {
        if member == "enterprise" {
            self = .direct
        } else {
            self.init(rawValue: member)
        }
    }
}

/// A credential the relying party names in allowCredentials / excludeCredentials. Only descriptors of type
/// "public-key" survive conversion, one per id (`CredentialDescriptorList`); `transports` are the page's hints,
/// kept verbatim.
public struct PublicKeyCredentialDescriptor: Sendable, Equatable {
    public var id: [UInt8]
    public var transports: [String]

    public init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }
}

/// The client-side bounds on a ceremony's duration (§5.1.3 step 5 / §5.1.4 step 5 leave them to the client).
/// They follow Chromium's spirit: long enough to find and touch a key and type a PIN, short enough that a
/// forgotten tab does not keep the key busy.
public enum Timeouts {
    public static let defaultMilliseconds = 300_000
    public static let minimumMilliseconds = 30_000
    public static let maximumMilliseconds = 600_000

    /// The timeout to use: the page's value clamped to the bounds, or the default when it gave none.
    public static func effective(milliseconds: Int?) -> Int {
        guard let milliseconds else { return defaultMilliseconds }
        return min(max(milliseconds, minimumMilliseconds), maximumMilliseconds)
    }
}
