import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// authenticatorClientPIN subcommands (CTAP 2.1 §6.5.5).
enum ClientPINSubcommand: Int {
    case getPINRetries = 1
    case getKeyAgreement = 2
    case setPIN = 3
    case changePIN = 4
    case getPINToken = 5
    case getPinUvAuthTokenUsingUvWithPermissions = 6
    case getUVRetries = 7
    case getPinUvAuthTokenUsingPinWithPermissions = 9
}

extension SoftToken {
    func clientPIN(_ p: CBOR, userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        guard let rawSubcommand = try p.int(2) else { throw .missingParameter }
        guard let subcommand = ClientPINSubcommand(rawValue: rawSubcommand) else { throw .invalidSubcommand }
        switch subcommand {
        case .getPINRetries:
            return .map([(3, .int(state.pinRetries)), (4, false)])
        case .getUVRetries:
            guard state.configuration.builtInUV else { throw .invalidSubcommand }
            return .map([(5, .int(state.uvRetries))])
        default: break
        }
        guard let version = try p.int(1) else { throw .missingParameter }
        guard state.configuration.pinUvAuthProtocols.contains(version), let pinProtocol = PINProtocol(version) else {
            throw .invalidParameter
        }
        switch subcommand {
        case .getKeyAgreement:
            let point = session.keyAgreement.publicPoint
            return .map([
                (
                    1,
                    .map([
                        (1, 2), (3, -25), (-1, 1), (-2, .bytes(Array(point[1..<33]))),
                        (-3, .bytes(Array(point[33..<65]))),
                    ])
                )
            ])
        case .setPIN: try setPIN(p, pinProtocol)
        case .changePIN: try changePIN(p, pinProtocol)
        case .getPINToken:
            if p[int: 9] != nil || p[int: 10] != nil { throw .invalidParameter }
            // A CTAP 2.1-PRE key's pinToken carries no permissions, so its credential management and bio
            // enrollment accept it too.
            let preview = !state.configuration.ctap21
            let permissions =
                Permission.makeCredential | Permission.getAssertion
                | (preview && hasCredentialManagementPreview ? Permission.credentialManagement : 0)
                | (preview && hasAnyBioEnrollment ? Permission.bioEnrollment : 0)
            return try pinToken(p, pinProtocol, permissions: permissions, rpID: nil)
        case .getPinUvAuthTokenUsingPinWithPermissions:
            let (permissions, rpID) = try requestedPermissions(p)
            return try pinToken(p, pinProtocol, permissions: permissions, rpID: rpID)
        case .getPinUvAuthTokenUsingUvWithPermissions:
            let (permissions, rpID) = try requestedPermissions(p)
            guard hasBuiltInUVConfigured else { throw .notAllowed }
            let shared = try pinProtocol.sharedSecret(keyAgreement: session.keyAgreement, platformKey: try p.map(3))
            try performBuiltInUV(userTouched: userTouched)
            return try issueToken(
                pinProtocol, shared: shared, permissions: permissions, rpID: rpID, userPresent: true)
        case .getPINRetries, .getUVRetries: break
        }
        return nil
    }

    private func requestedPermissions(_ p: CBOR) throws(CTAPStatus) -> (UInt8, String?) {
        guard let permissions = try p.int(9) else { throw .missingParameter }
        guard permissions > 0, permissions <= 0xFF else { throw .invalidParameter }
        guard UInt8(permissions) & ~supportedPermissions == 0 else { throw .unauthorizedPermission }
        return (UInt8(permissions), try p.text(10))
    }

    /// The permissions this token grants: `be` and `acfg` only with those commands.
    private var supportedPermissions: UInt8 {
        Permission.supported | (hasAnyBioEnrollment ? Permission.bioEnrollment : 0)
            | (hasConfig ? Permission.authenticatorConfig : 0)
    }

    private func setPIN(_ p: CBOR, _ pinProtocol: PINProtocol) throws(CTAPStatus) {
        guard let platformKey = try p.map(3), let param = try p.bytes(4), let newPinEnc = try p.bytes(5) else {
            throw .missingParameter
        }
        guard state.pinHash == nil else { throw .notAllowed }
        var shared = try pinProtocol.sharedSecret(keyAgreement: session.keyAgreement, platformKey: platformKey)
        defer { Digest.zero(&shared) }
        guard pinProtocol.verify(key: shared, message: newPinEnc, signature: param) else { throw .pinAuthInvalid }
        try storeNewPIN(newPinEnc, pinProtocol, shared: shared)
    }

    private func changePIN(_ p: CBOR, _ pinProtocol: PINProtocol) throws(CTAPStatus) {
        guard let platformKey = try p.map(3), let param = try p.bytes(4), let newPinEnc = try p.bytes(5),
            let pinHashEnc = try p.bytes(6)
        else { throw .missingParameter }
        guard state.pinHash != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        var shared = try pinProtocol.sharedSecret(keyAgreement: session.keyAgreement, platformKey: platformKey)
        defer { Digest.zero(&shared) }
        guard pinProtocol.verify(key: shared, message: newPinEnc + pinHashEnc, signature: param) else {
            throw .pinAuthInvalid
        }
        try checkPINHash(pinHashEnc, pinProtocol, shared: shared)
        try storeNewPIN(newPinEnc, pinProtocol, shared: shared, mustDiffer: state.settings.forcePINChange)
        session.resetToken()
    }

    private func pinToken(_ p: CBOR, _ pinProtocol: PINProtocol, permissions: UInt8, rpID: String?) throws(CTAPStatus)
        -> CBOR
    {
        guard let platformKey = try p.map(3), let pinHashEnc = try p.bytes(6) else { throw .missingParameter }
        guard state.pinHash != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        var shared = try pinProtocol.sharedSecret(keyAgreement: session.keyAgreement, platformKey: platformKey)
        defer { Digest.zero(&shared) }
        try checkPINHash(pinHashEnc, pinProtocol, shared: shared)
        // getInfo forcePINChange: the right PIN still gives no token until it is changed (§6.5.5.7.2).
        if state.settings.forcePINChange { throw .pinPolicyViolation }
        return try issueToken(pinProtocol, shared: shared, permissions: permissions, rpID: rpID)
    }

    /// A fresh pinUvAuthToken with the given permissions, encrypted for the platform. `userPresent`: it was made by
    /// built-in UV, whose finger on the sensor was the user's presence too.
    private func issueToken(
        _ pinProtocol: PINProtocol, shared: [UInt8], permissions: UInt8, rpID: String?, userPresent: Bool = false
    ) throws(CTAPStatus) -> CBOR {
        session.resetToken()
        session.tokenProtocol = pinProtocol.version
        session.permissions = permissions
        session.permissionsRPID = rpID
        session.tokenUserPresent = userPresent
        return .map([(2, .bytes(try pinProtocol.encrypt(key: shared, session.pinUvAuthToken)))])
    }

    /// Compares the platform's encrypted LEFT(SHA-256(PIN), 16) with ours, counting retries down first so a
    /// crash mid-check cannot give a free guess. 3 misses in a row block PIN use until the next power cycle.
    private func checkPINHash(_ pinHashEnc: [UInt8], _ pinProtocol: PINProtocol, shared: [UInt8]) throws(CTAPStatus) {
        if session.consecutivePINFailures >= 3 { throw .pinAuthBlocked }
        try commit { $0.pinRetries -= 1 }
        var candidate = try pinProtocol.decrypt(key: shared, pinHashEnc)
        defer { Digest.zero(&candidate) }
        guard let stored = state.pinHash, candidate.count == 16, Digest.constantTimeEqual(candidate, Array(stored))
        else {
            try session.regenerateKeyAgreement()
            session.consecutivePINFailures += 1
            if state.pinRetries == 0 { throw .pinBlocked }
            if session.consecutivePINFailures >= 3 { throw .pinAuthBlocked }
            throw .pinInvalid
        }
        session.consecutivePINFailures = 0
        try commit { $0.pinRetries = TokenState.maxPINRetries }
    }

    /// `mustDiffer`: a forced change refuses the current PIN as the new one.
    private func storeNewPIN(
        _ newPinEnc: [UInt8], _ pinProtocol: PINProtocol, shared: [UInt8], mustDiffer: Bool = false
    )
        throws(CTAPStatus)
    {
        let expectedLength = pinProtocol.version == 1 ? 64 : 80
        guard newPinEnc.count == expectedLength else { throw .invalidParameter }
        var padded = try pinProtocol.decrypt(key: shared, newPinEnc)
        defer { Digest.zero(&padded) }
        var pin = Array(padded.prefix { $0 != 0 })
        defer { Digest.zero(&pin) }
        guard pin.count <= 63, let text = String(validating: pin, as: UTF8.self),
            text.unicodeScalars.count >= minPINLength
        else { throw .pinPolicyViolation }
        let hash = Data(Digest.sha256(pin).prefix(16))
        if mustDiffer, let stored = state.pinHash, Digest.constantTimeEqual(Array(hash), Array(stored)) {
            throw .pinPolicyViolation
        }
        let length = text.unicodeScalars.count
        try commit {
            $0.pinHash = hash
            $0.pinRetries = TokenState.maxPINRetries
            $0.settings.pinLength = length
            $0.settings.forcePINChange = false
        }
    }

    /// Verifies a pinUvAuthParam made with the current pinUvAuthToken and checks its permission and RP binding.
    func verifyPinUvAuthParam(
        _ param: [UInt8], protocolVersion: Int?, message: [UInt8], permission: UInt8, rpID: String?
    ) throws(CTAPStatus) {
        guard let version = protocolVersion else { throw .missingParameter }
        guard state.configuration.pinUvAuthProtocols.contains(version), let pinProtocol = PINProtocol(version) else {
            throw .invalidParameter
        }
        guard session.tokenProtocol == version,
            pinProtocol.verify(key: session.pinUvAuthToken, message: message, signature: param)
        else { throw .pinAuthInvalid }
        guard session.permissions & permission != 0 else { throw .pinAuthInvalid }
        if let rpID {
            if let bound = session.permissionsRPID {
                guard bound == rpID else { throw .pinAuthInvalid }
            } else {
                session.permissionsRPID = rpID
            }
        }
    }

    /// hmac-secret (CTAP 2.1 §12.5): HMAC-SHA-256(credRandom, salt) for one or two salts, encrypted for the platform.
    func hmacSecret(_ input: CBOR, credential: CredentialSecrets, userVerified: Bool) throws(CTAPStatus) -> [UInt8] {
        guard input.mapValue != nil else { throw .cborUnexpectedType }
        guard let saltEnc = try input.bytes(2), let saltAuth = try input.bytes(3) else { throw .missingParameter }
        let version = try input.int(4) ?? 1
        guard state.configuration.pinUvAuthProtocols.contains(version), let pinProtocol = PINProtocol(version) else {
            throw .invalidParameter
        }
        var shared = try pinProtocol.sharedSecret(keyAgreement: session.keyAgreement, platformKey: try input.map(1))
        defer { Digest.zero(&shared) }
        guard pinProtocol.verify(key: shared, message: saltEnc, signature: saltAuth) else { throw .pinAuthInvalid }
        var salts = try pinProtocol.decrypt(key: shared, saltEnc)
        defer { Digest.zero(&salts) }
        guard salts.count == 32 || salts.count == 64 else { throw .invalidLength }
        let credRandom = credential.credRandom(userVerified: userVerified)
        var output = Digest.hmacSHA256(key: credRandom, data: salts.prefix(32))
        if salts.count == 64 { output += Digest.hmacSHA256(key: credRandom, data: salts.suffix(32)) }
        defer { Digest.zero(&output) }
        return try pinProtocol.encrypt(key: shared, output)
    }
}
