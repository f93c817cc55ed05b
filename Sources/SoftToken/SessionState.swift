import CTAP
import Cryptography
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// CTAP state that a real key keeps in RAM and loses on power-off, so it is never written to the state file.
struct SessionState {
    var keyAgreement: KeyAgreementKey
    var pinUvAuthToken: [UInt8]
    /// The PIN/UV auth protocol the current pinUvAuthToken was issued under (nil: no token issued).
    var tokenProtocol: Int?
    var permissions: UInt8 = 0
    var permissionsRPID: String?
    /// The token's user-present flag: set when built-in UV made it (the finger on the sensor is presence), so the
    /// request it authorises needs no touch of its own (CTAP 2.1: beginUsingPinUvAuthToken(userIsPresent: true),
    /// then getUserPresentFlagValue() in makeCredential and getAssertion).
    var tokenUserPresent = false
    /// Wrong PINs in a row since power-up; 3 gives PIN_AUTH_BLOCKED until the next power cycle.
    var consecutivePINFailures = 0
    var nextAssertions: AssertionBatch?
    var largeBlobWrite: LargeBlobWrite?
    var credentialEnumeration: CredentialEnumeration?
    /// The fingerprint enrollment in progress (authenticatorBioEnrollment), if any.
    var enrollment: FingerprintEnrollment?
    /// When the key was plugged in (on the token's `clock`): authenticatorReset is refused 10 s after it.
    let poweredUpAt: ContinuousClock.Instant
    /// U2F: when the simulated user touches for the U2F request now being repeated (see `U2F`).
    var u2fTouchAt: Deadline?

    init(poweredUpAt: ContinuousClock.Instant) throws(CryptoError) {
        self.poweredUpAt = poweredUpAt
        keyAgreement = try KeyAgreementKey()
        pinUvAuthToken = Digest.randomBytes(32)
    }

    /// resetPinUvAuthToken(): a fresh random token with no permissions.
    mutating func resetToken() {
        Digest.zero(&pinUvAuthToken)
        pinUvAuthToken = Digest.randomBytes(32)
        tokenProtocol = nil
        permissions = 0
        permissionsRPID = nil
        tokenUserPresent = false
    }

    /// What a request that collected presence does to the token it used: clearUserPresentFlag(),
    /// clearUserVerifiedFlag() and clearPinUvAuthTokenPermissionsExceptLbw() (CTAP 2.1).
    mutating func consumeToken() {
        tokenUserPresent = false
        permissions &= Permission.largeBlobWrite
    }

    mutating func regenerateKeyAgreement() throws(CTAPStatus) {
        do { keyAgreement = try KeyAgreementKey() } catch { throw .other }
    }
}

/// pinUvAuthToken permission bits (CTAP 2.1 §6.5.5.7).
enum Permission {
    static let makeCredential: UInt8 = 0x01
    static let getAssertion: UInt8 = 0x02
    static let credentialManagement: UInt8 = 0x04
    static let bioEnrollment: UInt8 = 0x08
    static let largeBlobWrite: UInt8 = 0x10
    static let authenticatorConfig: UInt8 = 0x20
    /// The ones any token can grant; `be` and `acfg` only a token with those commands.
    static let supported: UInt8 = makeCredential | getAssertion | credentialManagement | largeBlobWrite
}

/// An enrollment between its EnrollBegin and its last sample (CTAP 2.1 §6.7.4).
struct FingerprintEnrollment {
    var templateID: [UInt8]
    var remaining: Int
    /// Touches so far, good or not: picks the simulated finger's next feedback.
    var touches: Int
}

/// Credentials left over from a getAssertion for getNextAssertion.
struct AssertionBatch {
    var remaining: [[UInt8]]
    var request: AssertionRequest
    var userVerified: Bool
}

/// A largeBlobs write in progress (CTAP 2.1 §6.10.3: several fragments, offsets in order).
struct LargeBlobWrite {
    var expectedLength: Int
    var buffer: [UInt8]
}
