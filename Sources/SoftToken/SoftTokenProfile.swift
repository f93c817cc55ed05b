/// A SoftToken configuration that imitates what a kind of real key says about itself (its CTAPHID capabilities
/// and authenticatorGetInfo), so the host can be tested against the keys people own without the hardware.
/// `docs/keys.md` names the public source of each and what the SoftToken does not imitate.
public struct SoftTokenProfile: Sendable {
    public let name: String
    /// What kind of key this is, for `token show` and `token profiles`.
    public let summary: String
    public let configuration: SoftTokenConfiguration
    /// The USB ids and names of the key imitated (`USBIdentity.softToken` when no particular key).
    public let usb: USBIdentity

    init(name: String, summary: String, usb: USBIdentity = .softToken, configuration: SoftTokenConfiguration) {
        self.name = name
        self.summary = summary
        self.usb = usb
        var configuration = configuration
        configuration.profile = name
        self.configuration = configuration
    }

    public static func named(_ name: String) -> SoftTokenProfile? { all.first { $0.name == name } }

    /// The USB identity of a token made with the profile `name` (none: a SoftToken imitating no key).
    public static func usbIdentity(ofProfile name: String?) -> USBIdentity {
        name.flatMap(named)?.usb ?? .softToken
    }

    public static let all: [SoftTokenProfile] = [
        .init(
            name: "u2f-only",
            summary: "U2F-only key (Security Key by Yubico 1st generation, YubiKey NEO/4, Feitian/HyperFIDO U2F keys)",
            usb: .yubicoU2F,
            configuration: make { c in
                c.ctap2 = false
                c.u2f = true
                c.residentKeys = false
                c.algorithms = [-7]
                c.extensions = []
                c.aaguid = [UInt8](repeating: 0, count: 16)
            }),
        .init(
            name: "ctap20", summary: "CTAP 2.0 key, PIN protocol 1, no pinUvAuthToken (YubiKey 5 before firmware 5.2)",
            usb: .yubiKey5,
            configuration: make { c in
                c.u2f = true
                c.ctap21 = false
                c.pinUvAuthTokenPermissions = false
                c.largeBlobs = false
                c.pinUvAuthProtocols = [1]
                c.algorithms = [-7]
                c.extensions = ["hmac-secret"]
                c.aaguid = hex("cb69481e8ff7403993ec0a2729a154a8")
            }),
        .init(
            name: "yubikey5-pre",
            summary:
                "CTAP 2.0 key with the CTAP 2.1-PRE credential management, PIN protocol 1 (YubiKey 5, firmware 5.2–5.6)",
            usb: .yubiKey5,
            configuration: make { c in
                c.u2f = true
                c.ctap21 = false
                c.pinUvAuthTokenPermissions = false
                c.largeBlobs = false
                c.credentialManagementPreview = true
                c.discoverableCredentialSlots = 25
                c.pinUvAuthProtocols = [1]
                c.extensions = ["credProtect", "hmac-secret"]
                c.aaguid = hex("cb69481e8ff7403993ec0a2729a154a8")
            }),
        .init(
            name: "yubikey5",
            summary: "CTAP 2.1 key with U2F, ES256 and EdDSA, 8 credentials per list (YubiKey 5, firmware 5.7-like)",
            usb: .yubiKey5,
            configuration: make { c in
                c.u2f = true
                c.maxCredentialCountInList = 8
                c.discoverableCredentialSlots = 100
                c.aaguid = hex("a25342c03cdc44148e46f4807fca511c")
            }),
        .init(
            name: "bio",
            summary:
                "key with a built-in fingerprint reader, one finger enrolled, and a PIN fallback (YubiKey Bio-like)",
            usb: .yubicoFIDO,
            configuration: make { c in
                c.u2f = true
                c.builtInUV = true
                c.bioEnrollment = true
                c.largeBlobs = false
                c.extensions = ["credProtect", "hmac-secret"]
                c.maxCredentialCountInList = 8
                c.aaguid = hex("d8522d9f575b486688a9ba99fa02f35b")
            }),
        .init(
            name: "bio-pre",
            summary:
                "fingerprint key with the CTAP 2.1-PRE bio enrollment and credential management, PIN protocol 1 "
                + "(YubiKey Bio, firmware 5.5–5.6)",
            usb: .yubicoFIDO,
            configuration: make { c in
                c.u2f = true
                c.ctap21 = false
                c.builtInUV = true
                c.bioEnrollmentPreview = true
                c.credentialManagementPreview = true
                c.pinUvAuthTokenPermissions = false
                c.largeBlobs = false
                c.discoverableCredentialSlots = 25
                c.pinUvAuthProtocols = [1]
                c.extensions = ["credProtect", "hmac-secret"]
                c.aaguid = hex("d8522d9f575b486688a9ba99fa02f35b")
            }),
        .init(
            name: "small-limits", summary: "key with the smallest message size (1024) and 2 credentials per list",
            configuration: make { c in
                c.maxMessageSize = 1024
                // Its ~250-byte credential IDs plus a certificate would not fit 1024 bytes; real keys' IDs are shorter.
                c.attestation = .selfAttestation
                c.maxCredentialCountInList = 2
                c.largeBlobs = false
                c.extensions = ["credProtect", "hmac-secret"]
            }),
        .init(
            name: "no-rk", summary: "CTAP 2.0 key that cannot store discoverable credentials (passkeys)",
            configuration: make { c in
                c.u2f = true
                c.ctap21 = false
                c.residentKeys = false
                c.pinUvAuthTokenPermissions = false
                c.largeBlobs = false
                c.pinUvAuthProtocols = [1]
                c.algorithms = [-7]
                c.extensions = ["hmac-secret"]
            }),
        .init(
            name: "always-uv",
            summary:
                "CTAP 2.1 key with alwaysUv on: every use needs the PIN, U2F is off (YubiKey 5 after toggle-always-uv)",
            usb: .yubiKey5,
            configuration: make { c in
                c.u2f = true
                c.alwaysUV = true
                c.maxCredentialCountInList = 8
                c.discoverableCredentialSlots = 100
                c.aaguid = hex("a25342c03cdc44148e46f4807fca511c")
            }),
        .init(
            name: "es256-only",
            summary: "CTAP 2.1 key that makes ES256 credentials only (many Feitian and Google Titan keys)",
            configuration: make { c in
                c.u2f = true
                c.algorithms = [-7]
                c.largeBlobs = false
                c.extensions = ["credProtect", "hmac-secret"]
            }),
    ]

    private static func make(_ adjust: (inout SoftTokenConfiguration) -> Void) -> SoftTokenConfiguration {
        var configuration = SoftTokenConfiguration()
        adjust(&configuration)
        return configuration
    }

    private static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            guard let byte = UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) else {
                preconditionFailure("a profile's AAGUID in this file is not hex: \(text)")
            }
            return byte
        }
    }
}
