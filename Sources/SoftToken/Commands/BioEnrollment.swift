import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// authenticatorBioEnrollment subcommands for fingerprints (CTAP 2.1 §6.7).
enum BioEnrollmentSubcommand: Int {
    case enrollBegin = 0x01
    case enrollCaptureNextSample = 0x02
    case cancelCurrentEnrollment = 0x03
    case enumerateEnrollments = 0x04
    case setFriendlyName = 0x05
    case removeEnrollment = 0x06
    case getFingerprintSensorInfo = 0x07
}

extension SoftToken {
    /// Whether this token answers authenticatorBioEnrollment 0x09 (a CTAP 2.1 key whose profile has it).
    var hasBioEnrollment: Bool { state.configuration.ctap21 && state.configuration.bioEnrollment }

    /// Whether it answers the preview command 0x40: every key with bio enrollment, and a preview-only key.
    var hasAnyBioEnrollment: Bool { hasBioEnrollment || state.configuration.bioEnrollmentPreview }

    /// The longest friendly name (getFingerprintSensorInfo's maxTemplateFriendlyName), in bytes.
    static let maxFingerprintNameBytes = 64

    /// authenticatorBioEnrollment (§6.7) for the simulated fingerprint reader: each sample is a touch (the token's
    /// presence mode), and its feedback comes from the configuration's `enrollmentFeedback`. The sensor info and
    /// the modality need no token; cancelling needs none either; the rest a pinUvAuthToken with the `be`
    /// permission over modality ‖ subCommand ‖ subCommandParams.
    func bioEnrollment(_ p: CBOR, userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        if try p.bool(6) == true { return .map([(1, 1)]) }
        guard let modality = try p.int(1) else { throw .missingParameter }
        guard modality == 1 else { throw .invalidParameter }
        guard let raw = try p.int(2) else { throw .missingParameter }
        guard let subcommand = BioEnrollmentSubcommand(rawValue: raw) else { throw .invalidSubcommand }
        let subParameters = try p.map(3)
        switch subcommand {
        case .getFingerprintSensorInfo:
            return .map([
                (2, 1), (3, .int(state.configuration.enrollmentSamples)), (8, .int(Self.maxFingerprintNameBytes)),
            ])
        case .cancelCurrentEnrollment:
            session.enrollment = nil
            return nil
        default: break
        }
        var message: [UInt8] = [UInt8(modality), UInt8(raw)]
        if let subParameters { message += subParameters.encode() }
        guard let param = try p.bytes(5) else { throw .puatRequired }
        try verifyPinUvAuthParam(
            param, protocolVersion: try p.int(4), message: message, permission: Permission.bioEnrollment, rpID: nil)
        switch subcommand {
        case .enrollBegin:
            guard state.settings.fingerprints.count < state.configuration.fingerprintSlots else {
                throw .fingerprintDatabaseFull
            }
            try collectUserPresence(userTouched: userTouched)
            var enrollment = FingerprintEnrollment(
                templateID: Digest.randomBytes(4), remaining: state.configuration.enrollmentSamples, touches: 0)
            let status = try touchFinger(&enrollment)
            return .map([(4, .bytes(enrollment.templateID)), (5, .int(Int(status))), (6, .int(enrollment.remaining))])
        case .enrollCaptureNextSample:
            guard var enrollment = session.enrollment else { throw .invalidParameter }
            guard try subParameters?.bytes(1) == enrollment.templateID else { throw .invalidParameter }
            try collectUserPresence(userTouched: userTouched)
            let status = try touchFinger(&enrollment)
            return .map([(5, .int(Int(status))), (6, .int(enrollment.remaining))])
        case .enumerateEnrollments:
            let fingerprints = state.settings.fingerprints
            guard !fingerprints.isEmpty else { throw .invalidOption }
            return .map([
                (
                    7,
                    .array(
                        fingerprints.map { .map([(1, .bytes(Array($0.templateID))), (2, .text($0.name ?? ""))]) })
                )
            ])
        case .setFriendlyName:
            let index = try enrolledFingerprint(subParameters)
            guard let name = try subParameters?.text(2) else { throw .missingParameter }
            guard name.utf8.count <= Self.maxFingerprintNameBytes else { throw .invalidLength }
            try commit { $0.settings.fingerprints[index].name = name }
            return nil
        case .removeEnrollment:
            let index = try enrolledFingerprint(subParameters)
            try commit { $0.settings.fingerprints.remove(at: index) }
            return nil
        case .getFingerprintSensorInfo, .cancelCurrentEnrollment: return nil
        }
    }

    /// One touch of the simulated finger: its feedback, and, for a good sample, one sample fewer to go. The last
    /// good sample stores the fingerprint; until then the enrollment lives in the session only.
    private func touchFinger(_ enrollment: inout FingerprintEnrollment) throws(CTAPStatus) -> UInt8 {
        let feedback = state.configuration.enrollmentFeedback
        let status =
            enrollment.touches < feedback.count ? feedback[enrollment.touches] : EnrollSampleStatus.good.rawValue
        enrollment.touches += 1
        if status == EnrollSampleStatus.good.rawValue { enrollment.remaining -= 1 }
        if enrollment.remaining > 0 {
            session.enrollment = enrollment
            return status
        }
        session.enrollment = nil
        let fingerprint = EnrolledFingerprint(templateID: Data(enrollment.templateID), name: nil)
        try commit { $0.settings.fingerprints.append(fingerprint) }
        return status
    }

    /// The enrolled fingerprint a setFriendlyName or removeEnrollment names; an unknown one is INVALID_OPTION.
    private func enrolledFingerprint(_ subParameters: CBOR?) throws(CTAPStatus) -> Int {
        guard let id = try subParameters?.bytes(1) else { throw .missingParameter }
        guard let index = state.settings.fingerprints.firstIndex(where: { Array($0.templateID) == id }) else {
            throw .invalidOption
        }
        return index
    }
}
