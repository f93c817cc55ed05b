import CTAP
import Cryptography

/// How the simulated user answers a request for user presence ("touch the key").
///
/// `.delay` exists so the host can show "touch your key" and tests can exercise timeouts and cancel: while it
/// waits, the token sends CTAPHID KEEPALIVE(UPNEEDED) every 100 ms, exactly like a real key blinking.
public enum PresenceMode: Sendable, Codable, Equatable {
    /// The user touches at once.
    case automatic
    /// The user refuses: the command fails with CTAP2_ERR_OPERATION_DENIED.
    case deny
    /// The user touches after the given time.
    case delay(milliseconds: Int)
    /// The user touches when a test says so: a file `FILE.touch` beside the state file is one touch, taken (and
    /// the file removed) by the first request waiting for it. Lets a test touch one of several keys on an event.
    case onSignal
}

/// When authenticatorGetAssertion asking for the user's presence (up=true) finds no credential to sign with, the
/// two orders of the CTAP versions: both exist in the field, and a platform must need the same touches with either.
public enum NoCredentialsOrder: String, Sendable, Codable, Equatable {
    /// CTAP 2.0 §5.2 (steps 6–7): the touch first, then CTAP2_ERR_NO_CREDENTIALS, so the key shows nothing of what it
    /// holds until the user acted.
    case afterTouch = "after-touch"
    /// CTAP 2.1 §6.2.2 (step 7, before presence in step 9): CTAP2_ERR_NO_CREDENTIALS at once, leaving any touch to
    /// the platform (OpenSK; Nitrokey 3 and Solo 2, `fido-authenticator`).
    case atOnce = "at-once"
}

/// What the simulated built-in user verification (a "fingerprint") concludes when it is asked.
public enum UVOutcome: String, Sendable, Codable, Equatable {
    case succeed
    /// Each attempt fails (CTAP2_ERR_UV_INVALID) and costs one UV retry, until UV_BLOCKED.
    case fail
}

/// Which "packed" attestation statement makeCredential produces.
public enum AttestationMode: String, Sendable, Codable, Equatable {
    /// Signed by the credential's own key, no x5c (verifiable with `fido_cred_verify_self`).
    case selfAttestation = "self"
    /// Signed by a token-wide P-256 attestation key with a self-signed certificate in x5c (`fido_cred_verify`).
    case certificate
}

/// Everything about a SoftToken that is chosen when it is created and not changed by CTAP commands (what the owner
/// changes through them, and a reset undoes, is `OwnerSettings`). It is stored in the state file, so a reloaded
/// token behaves the same.
public struct SoftTokenConfiguration: Sendable, Codable, Equatable {
    /// Whether makeCredential accepts rk=true (getInfo option "rk").
    public var residentKeys: Bool = true
    /// Whether the token has built-in user verification (getInfo option "uv": true).
    public var builtInUV: Bool = false
    public var presence: PresenceMode = .automatic
    public var uvOutcome: UVOutcome = .succeed
    /// 16 bytes; defaults to the fixed webauthn-bridge SoftToken AAGUID.
    public var aaguid: [UInt8] = SoftTokenConfiguration.defaultAAGUID
    /// Advertised in getInfo, in order of preference. Use `[1]` to make libfido2 speak PIN protocol 1.
    public var pinUvAuthProtocols: [Int] = [2, 1]
    public var attestation: AttestationMode = .certificate
    public var minPINLength: Int = 4
    public var maxCredBlobLength: Int = 32
    public var maxSerializedLargeBlobArray: Int = 1024
    /// RP IDs allowed to learn the minimum PIN length through the minPinLength extension.
    public var minPINLengthRPIDs: [String] = []
    /// CTAP maxMsgSize: the largest CBOR message (command byte included) accepted or sent.
    public var maxMessageSize: Int = 1200
    /// getInfo option "pinUvAuthToken". With false the token looks like a CTAP 2.0 key to libfido2, which then
    /// uses getPINToken (0x05) instead of the permission-scoped 0x09/0x06 subcommands.
    public var pinUvAuthTokenPermissions: Bool = true
    /// Speaks CTAP2 (CTAPHID INIT reports the CBOR capability). False with `u2f` makes a U2F-only key, which
    /// libfido2 reaches through its U2F fallback.
    public var ctap2: Bool = true
    /// Speaks U2F (CTAP1) over CTAPHID_MSG (INIT clears the NMSG capability; getInfo lists U2F_V2).
    public var u2f: Bool = false
    /// getInfo versions include FIDO_2_1 and the 2.1 options and fields. False: a CTAP 2.0 key (FIDO_2_0 only,
    /// no pinUvAuthToken, no largeBlobs, no makeCredUvNotRqd, so a set PIN is needed for every credential).
    public var ctap21: Bool = true
    /// getInfo option "largeBlobs" and the authenticatorLargeBlobs command (CTAP 2.1 keys only).
    public var largeBlobs: Bool = true
    /// The extensions listed in getInfo and honoured; nil: every one the token implements.
    public var extensions: [String]?
    /// COSE algorithms accepted for new credentials (getInfo `algorithms`), in order of preference.
    public var algorithms: [Int] = [-7, -8]
    /// getInfo option "alwaysUv": every makeCredential and getAssertion needs user verification; U2F is off.
    public var alwaysUV: Bool = false
    /// getInfo maxCredentialCountInList; longer allow and exclude lists are refused (CTAP2_ERR_LIMIT_EXCEEDED).
    public var maxCredentialCountInList: Int?
    /// The authenticatorCredentialManagement command and getInfo option "credMgmt" (CTAP 2.1 keys only).
    public var credentialManagement: Bool = true
    /// The CTAP 2.1-PRE credential management: versions FIDO_2_1_PRE, option credentialMgmtPreview, command 0x41
    /// (YubiKey 5 firmware 5.2–5.6). With `ctap21` off it is the only credential management the key has.
    public var credentialManagementPreview: Bool = false
    /// How many discoverable credentials (passkeys) fit; one more is CTAP2_ERR_KEY_STORE_FULL. The default is
    /// out of reach of every test and benchmark; the profiles of real keys set theirs.
    public var discoverableCredentialSlots: Int = 1_000_000
    /// authenticatorConfig (CTAP 2.1 keys only): toggleAlwaysUv and setMinPINLength (getInfo option authnrCfg).
    public var authenticatorConfig: Bool = true
    /// authenticatorBioEnrollment for the built-in UV's simulated fingerprint reader (CTAP 2.1 keys only; getInfo
    /// option bioEnroll). Such a token also answers the preview command 0x40, which libfido2 sends.
    public var bioEnrollment: Bool = false
    /// The CTAP 2.1-PRE bio enrollment: versions FIDO_2_1_PRE, option userVerificationMgmtPreview, command 0x40
    /// (YubiKey Bio, firmware 5.5–5.6).
    public var bioEnrollmentPreview: Bool = false
    /// Good samples an enrollment needs (getFingerprintSensorInfo's maxCaptureSamplesRequiredForEnroll).
    public var enrollmentSamples: Int = 4
    /// How many fingers fit; one more is CTAP2_ERR_FP_DATABASE_FULL.
    public var fingerprintSlots: Int = 5
    /// The simulated finger: lastEnrollSampleStatus (CTAP's `EnrollSampleStatus` bytes) for the successive touches of
    /// every enrollment; a touch past the list gives a good sample. Only good samples count towards the enrollment.
    public var enrollmentFeedback: [UInt8] = []
    /// getAssertion's order of the touch and "no credentials"; nil: as the versions it reports imply (`atOnce` with
    /// FIDO_2_1, `afterTouch` without).
    public var noCredentialsOrder: NoCredentialsOrder?
    /// The real key this configuration imitates (`webauthn-bridge token create --profile`), for display.
    public var profile: String?

    /// "webauthn-bridge soft" in ASCII-ish hex: easy to recognise in logs as the development/test token.
    public static let defaultAAGUID: [UInt8] = [
        0x77, 0x65, 0x62, 0x61, 0x75, 0x74, 0x68, 0x6E, 0x2D, 0x62, 0x72, 0x69, 0x64, 0x67, 0x65, 0x00,
    ]

    public init(
        residentKeys: Bool = true, builtInUV: Bool = false, presence: PresenceMode = .automatic,
        uvOutcome: UVOutcome = .succeed, aaguid: [UInt8] = SoftTokenConfiguration.defaultAAGUID,
        pinUvAuthProtocols: [Int] = [2, 1], attestation: AttestationMode = .certificate
    ) {
        self.residentKeys = residentKeys
        self.builtInUV = builtInUV
        self.presence = presence
        self.uvOutcome = uvOutcome
        self.aaguid = aaguid
        self.pinUvAuthProtocols = pinUvAuthProtocols
        self.attestation = attestation
    }

    func validate() throws(SoftTokenError) {
        guard aaguid.count == 16 else { throw .invalidConfiguration("aaguid must be 16 bytes, not \(aaguid.count)") }
        guard !pinUvAuthProtocols.isEmpty, pinUvAuthProtocols.allSatisfy({ $0 == 1 || $0 == 2 }) else {
            throw .invalidConfiguration("pinUvAuthProtocols must be a non-empty list of 1 and 2")
        }
        guard (4...63).contains(minPINLength) else { throw .invalidConfiguration("minPINLength must be 4...63") }
        guard maxSerializedLargeBlobArray >= 1024 else {
            throw .invalidConfiguration("maxSerializedLargeBlobArray must be at least 1024")
        }
        guard (1024...7609).contains(maxMessageSize) else {
            throw .invalidConfiguration("maxMessageSize must be 1024...7609")
        }
        guard ctap2 || u2f else { throw .invalidConfiguration("a token must speak CTAP2, U2F or both") }
        guard !algorithms.isEmpty, algorithms.allSatisfy({ SigningAlgorithm(rawValue: $0) != nil }) else {
            throw .invalidConfiguration("algorithms must be a non-empty list of -7 (ES256) and -8 (EdDSA)")
        }
        if let count = maxCredentialCountInList, count < 1 {
            throw .invalidConfiguration("maxCredentialCountInList must be at least 1")
        }
        guard discoverableCredentialSlots >= 1 else {
            throw .invalidConfiguration("discoverableCredentialSlots must be at least 1")
        }
        guard !(bioEnrollment || bioEnrollmentPreview) || builtInUV else {
            throw .invalidConfiguration("bio enrollment needs built-in UV (the fingerprint reader)")
        }
        guard (1...32).contains(enrollmentSamples), (1...32).contains(fingerprintSlots) else {
            throw .invalidConfiguration("enrollmentSamples and fingerprintSlots must be 1...32")
        }
        if let unknown = enrollmentFeedback.first(where: { EnrollSampleStatus(rawValue: $0) == nil }) {
            throw .invalidConfiguration("unknown enrollment feedback \(unknown)")
        }
        if let unknown = extensions?.first(where: { !SoftToken.supportedExtensions.contains($0) }) {
            throw .invalidConfiguration("unknown extension \(unknown)")
        }
        if case .delay(let ms) = presence, ms < 0 { throw .invalidConfiguration("presence delay must not be negative") }
    }
}

extension SoftTokenConfiguration {
    enum CodingKeys: String, CodingKey {
        case residentKeys, builtInUV, presence, uvOutcome, aaguid, pinUvAuthProtocols, attestation, minPINLength
        case maxCredBlobLength, maxSerializedLargeBlobArray, minPINLengthRPIDs, maxMessageSize,
            pinUvAuthTokenPermissions
        case ctap2, u2f, ctap21, largeBlobs, extensions, algorithms, alwaysUV, maxCredentialCountInList, profile
        case credentialManagement, credentialManagementPreview, discoverableCredentialSlots
        case authenticatorConfig, bioEnrollment, bioEnrollmentPreview, enrollmentSamples, fingerprintSlots
        case enrollmentFeedback, noCredentialsOrder
    }

    /// Every field is optional in the file, so state files written before a field existed still load.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SoftTokenConfiguration()
        residentKeys = try c.decodeIfPresent(Bool.self, forKey: .residentKeys) ?? d.residentKeys
        builtInUV = try c.decodeIfPresent(Bool.self, forKey: .builtInUV) ?? d.builtInUV
        presence = try c.decodeIfPresent(PresenceMode.self, forKey: .presence) ?? d.presence
        uvOutcome = try c.decodeIfPresent(UVOutcome.self, forKey: .uvOutcome) ?? d.uvOutcome
        aaguid = try c.decodeIfPresent([UInt8].self, forKey: .aaguid) ?? d.aaguid
        pinUvAuthProtocols = try c.decodeIfPresent([Int].self, forKey: .pinUvAuthProtocols) ?? d.pinUvAuthProtocols
        attestation = try c.decodeIfPresent(AttestationMode.self, forKey: .attestation) ?? d.attestation
        minPINLength = try c.decodeIfPresent(Int.self, forKey: .minPINLength) ?? d.minPINLength
        maxCredBlobLength = try c.decodeIfPresent(Int.self, forKey: .maxCredBlobLength) ?? d.maxCredBlobLength
        maxSerializedLargeBlobArray =
            try c.decodeIfPresent(Int.self, forKey: .maxSerializedLargeBlobArray) ?? d.maxSerializedLargeBlobArray
        minPINLengthRPIDs = try c.decodeIfPresent([String].self, forKey: .minPINLengthRPIDs) ?? d.minPINLengthRPIDs
        maxMessageSize = try c.decodeIfPresent(Int.self, forKey: .maxMessageSize) ?? d.maxMessageSize
        pinUvAuthTokenPermissions =
            try c.decodeIfPresent(Bool.self, forKey: .pinUvAuthTokenPermissions) ?? d.pinUvAuthTokenPermissions
        ctap2 = try c.decodeIfPresent(Bool.self, forKey: .ctap2) ?? d.ctap2
        u2f = try c.decodeIfPresent(Bool.self, forKey: .u2f) ?? d.u2f
        ctap21 = try c.decodeIfPresent(Bool.self, forKey: .ctap21) ?? d.ctap21
        largeBlobs = try c.decodeIfPresent(Bool.self, forKey: .largeBlobs) ?? d.largeBlobs
        extensions = try c.decodeIfPresent([String].self, forKey: .extensions)
        algorithms = try c.decodeIfPresent([Int].self, forKey: .algorithms) ?? d.algorithms
        alwaysUV = try c.decodeIfPresent(Bool.self, forKey: .alwaysUV) ?? d.alwaysUV
        maxCredentialCountInList = try c.decodeIfPresent(Int.self, forKey: .maxCredentialCountInList)
        profile = try c.decodeIfPresent(String.self, forKey: .profile)
        credentialManagement =
            try c.decodeIfPresent(Bool.self, forKey: .credentialManagement) ?? d.credentialManagement
        credentialManagementPreview =
            try c.decodeIfPresent(Bool.self, forKey: .credentialManagementPreview) ?? d.credentialManagementPreview
        discoverableCredentialSlots =
            try c.decodeIfPresent(Int.self, forKey: .discoverableCredentialSlots) ?? d.discoverableCredentialSlots
        authenticatorConfig = try c.decodeIfPresent(Bool.self, forKey: .authenticatorConfig) ?? d.authenticatorConfig
        bioEnrollment = try c.decodeIfPresent(Bool.self, forKey: .bioEnrollment) ?? d.bioEnrollment
        bioEnrollmentPreview =
            try c.decodeIfPresent(Bool.self, forKey: .bioEnrollmentPreview) ?? d.bioEnrollmentPreview
        enrollmentSamples = try c.decodeIfPresent(Int.self, forKey: .enrollmentSamples) ?? d.enrollmentSamples
        fingerprintSlots = try c.decodeIfPresent(Int.self, forKey: .fingerprintSlots) ?? d.fingerprintSlots
        enrollmentFeedback =
            try c.decodeIfPresent([UInt8].self, forKey: .enrollmentFeedback) ?? d.enrollmentFeedback
        noCredentialsOrder = try c.decodeIfPresent(NoCredentialsOrder.self, forKey: .noCredentialsOrder)
    }

    /// The order the reported versions imply: CTAP 2.1's with FIDO_2_1, 2.0's without.
    public var noCredentialsOrderOfItsVersions: NoCredentialsOrder { ctap21 ? .atOnce : .afterTouch }

    /// The order getAssertion follows: the one configured, or the one the reported versions imply.
    public var effectiveNoCredentialsOrder: NoCredentialsOrder { noCredentialsOrder ?? noCredentialsOrderOfItsVersions }
}
