import CBOR
import CFIDO2
import CTAP
import FIDO
import Foundation
import Secrets
import Testing

@testable import SoftToken

/// The simulated fingerprint reader through FIDO's fingerprint operations (libfido2's fido_bio_*, which speaks the
/// preview command 0x40), on the CTAP 2.1 and the preview profile.
@Suite struct BioEnrollmentTests {
    static let pin = SecretBytes(Array("1234".utf8))

    static func bioToken(_ profile: String = "bio", adjust: (inout SoftTokenConfiguration) -> Void = { _ in })
        throws -> TokenFixture
    {
        var configuration = try #require(SoftTokenProfile.named(profile)).configuration
        adjust(&configuration)
        return try TokenFixture(configuration, pin: "1234")
    }

    @Test(arguments: ["bio", "bio-pre"])
    func aNewKeyHasOneFingerAndSaysSo(profile: String) throws {
        let fixture = try Self.bioToken(profile)
        let device = try fixture.open()
        #expect(device.supportsBioEnrollment && device.info.hasBuiltInUV)
        let fingerprints = try device.fingerprints(pin: Self.pin)
        #expect(fingerprints.map(\.name) == ["Finger 1"])
        #expect(try device.fingerprintSamplesNeeded() == 4)
    }

    @Test(arguments: ["bio", "bio-pre"])
    func enrollmentReportsEverySampleAndAddsTheFinger(profile: String) throws {
        let fixture = try Self.bioToken(profile) { $0.enrollmentFeedback = [0, 5, 0, 7] }
        let device = try fixture.open()
        var samples: [FingerprintSample] = []
        let id = try device.enrollFingerprint(pin: Self.pin) { samples.append($0) }
        #expect(samples.map(\.status) == [.good, .tooFast, .good, .poorQuality, .good, .good])
        #expect(samples.map(\.remaining) == [3, 3, 2, 2, 1, 0])
        #expect(try device.fingerprints(pin: Self.pin).map(\.templateID).last == id)
    }

    @Test func renameAndDeleteReachTheKey() throws {
        let fixture = try Self.bioToken()
        let device = try fixture.open()
        let id = try device.enrollFingerprint(pin: Self.pin) { _ in }
        try device.renameFingerprint(templateID: id, name: "Left thumb", pin: Self.pin)
        #expect(try device.fingerprints(pin: Self.pin).map(\.name) == ["Finger 1", "Left thumb"])
        let first = try #require(try device.fingerprints(pin: Self.pin).first)
        try device.deleteFingerprint(templateID: first.templateID, pin: Self.pin)
        try fixture.reload()
        #expect(try fixture.open().fingerprints(pin: Self.pin).map(\.name) == ["Left thumb"])
        expectFido(FIDO_ERR_INVALID_OPTION) { try device.deleteFingerprint(templateID: [1, 2, 3], pin: Self.pin) }
    }

    @Test func withoutAFingerBuiltInUVIsOffUntilOneIsEnrolled() throws {
        let fixture = try Self.bioToken()
        let device = try fixture.open()
        for finger in try device.fingerprints(pin: Self.pin) {
            try device.deleteFingerprint(templateID: finger.templateID, pin: Self.pin)
        }
        #expect(try device.fingerprints(pin: Self.pin).isEmpty)
        let info = try device.readInfo()
        #expect(info.options["uv"] == false && info.options["bioEnroll"] == false)
        try device.enrollFingerprint(pin: Self.pin) { _ in }
        #expect(try device.readInfo().options["uv"] == true)
    }

    @Test func aFullReaderRefusesAnotherFinger() throws {
        let fixture = try Self.bioToken { $0.fingerprintSlots = 1 }
        let device = try fixture.open()
        expectFido(FIDO_ERR_FP_DATABASE_FULL) { try device.enrollFingerprint(pin: Self.pin) { _ in } }
    }

    @Test func aRefusedTouchEndsTheEnrollmentWithoutAFinger() throws {
        let fixture = try Self.bioToken()
        try fixture.token.setPresence(.deny)
        let device = try fixture.open()
        expectFido(FIDO_ERR_OPERATION_DENIED) { try device.enrollFingerprint(pin: Self.pin) { _ in } }
        try fixture.token.setPresence(.automatic)
        #expect(try device.fingerprints(pin: Self.pin).count == 1)
    }

    @Test func resetRemovesTheFingers() throws {
        let fixture = try Self.bioToken()
        let device = try fixture.open()
        try device.reset()
        #expect(try device.readInfo().options["uv"] == false)
        #expect(fixture.token.summary().pinSet == false)
    }

    @Test func aKeyWithoutAReaderHasNoBioEnrollment() throws {
        let fixture = try TokenFixture(pin: "1234")
        let device = try fixture.open()
        #expect(!device.supportsBioEnrollment)
        // libfido2 asks for a token with the `be` permission first, which such a key does not grant.
        expectFido(FIDO_ERR_UNAUTHORIZED_PERM) { try device.fingerprints(pin: Self.pin) }
    }

    @Test func theCTAP21CommandNeedsTheBePermission() throws {
        let fixture = try Self.bioToken()
        let client = try RawCTAP2Client(fixture.devicePath)
        let (status, _) = try client.send(.bioEnrollment, .map([(1, 1), (2, 4)]))
        #expect(status == CTAPStatus.puatRequired.rawValue)
        let (modalityStatus, modality) = try client.send(.bioEnrollment, .map([(6, true)]))
        #expect(modalityStatus == 0 && modality?[int: 1]?.intValue == 1)
    }
}
