import CFIDO2
import CTAP
import Secrets

/// One fingerprint enrolled on a key: the key's template ID and the name its owner gave it.
public struct Fingerprint: Sendable, Equatable {
    public var templateID: [UInt8]
    public var name: String?

    public init(templateID: [UInt8], name: String?) {
        self.templateID = templateID
        self.name = name
    }
}

/// What the key said after one touch of the finger during an enrollment.
public struct FingerprintSample: Sendable, Equatable {
    /// nil: a status CTAP 2.1 does not define (`rawStatus` holds it).
    public var status: EnrollSampleStatus?
    public var rawStatus: UInt8
    /// How many more good samples the key wants; 0 ends the enrollment.
    public var remaining: Int

    public init(rawStatus: UInt8, remaining: Int) {
        self.rawStatus = rawStatus
        self.status = EnrollSampleStatus(rawValue: rawStatus)
        self.remaining = remaining
    }
}

/// authenticatorBioEnrollment (CTAP 2.1 §6.7) through libfido2's fido_bio_* API, which sends every subcommand under
/// the preview command byte 0x40 (keys with the CTAP 2.1 command answer it too). Each call that needs it gets a
/// pinUvAuthToken with the `be` permission from `pin`.
extension Device {
    /// Whether the key can enroll fingerprints (getInfo option bioEnroll, or the preview's
    /// userVerificationMgmtPreview; either is false while no finger is enrolled).
    public var supportsBioEnrollment: Bool {
        info.options["bioEnroll"] != nil || info.options["userVerificationMgmtPreview"] != nil
    }

    /// How many good samples an enrollment needs (getFingerprintSensorInfo); no PIN asked.
    public func fingerprintSamplesNeeded() throws(FIDOError) -> Int {
        guard let info = fido_bio_info_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_bio_info_new")
        }
        var owned: OpaquePointer? = info
        defer { fido_bio_info_free(&owned) }
        try FIDOError.check(fido_bio_dev_get_info(handle, info), "fido_bio_dev_get_info")
        return Int(fido_bio_info_max_samples(info))
    }

    /// The fingerprints enrolled, in the key's order; none is an empty list (a key answers enumerate with
    /// CTAP2_ERR_INVALID_OPTION when it has none).
    public func fingerprints(pin: SecretBytes) throws(FIDOError) -> [Fingerprint] {
        guard let array = fido_bio_template_array_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_bio_template_array_new")
        }
        var owned: OpaquePointer? = array
        defer { fido_bio_template_array_free(&owned) }
        let status = pin.withCString { fido_bio_dev_get_template_array(handle, array, $0) }
        if status == FIDO_ERR_INVALID_OPTION { return [] }
        try FIDOError.check(status, "fido_bio_dev_get_template_array")
        return (0..<fido_bio_template_array_count(array)).compactMap { index in
            guard let template = fido_bio_template(array, index) else { return nil }
            return Fingerprint(
                templateID: Self.bytes(fido_bio_template_id_ptr(template), fido_bio_template_id_len(template)),
                name: fido_bio_template_name(template).map { String(cString: $0) })
        }
    }

    /// Enrolls a new fingerprint: one touch of the finger per sample, each answered through `onSample` (on this
    /// thread) until the key needs no more. Each sample waits up to `sampleTimeoutMilliseconds` for the finger.
    /// Returns the new template ID. On any failure, `cancel()` included, the key's enrollment is cancelled so it
    /// keeps no half-enrolled finger.
    public func enrollFingerprint(
        pin: SecretBytes, sampleTimeoutMilliseconds: Int = 30_000, onSample: (FingerprintSample) -> Void
    ) throws(FIDOError) -> [UInt8] {
        guard let template = fido_bio_template_new(), let enroll = fido_bio_enroll_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_bio_enroll_new")
        }
        var ownedTemplate: OpaquePointer? = template
        var ownedEnroll: OpaquePointer? = enroll
        defer {
            fido_bio_template_free(&ownedTemplate)
            fido_bio_enroll_free(&ownedEnroll)
        }
        let timeout = UInt32(clamping: sampleTimeoutMilliseconds)
        do {
            try awaitingTheUser { () throws(FIDOError) in
                try pin.withCString { (p) throws(FIDOError) in
                    try FIDOError.check(
                        fido_bio_dev_enroll_begin(handle, template, enroll, timeout, p), "fido_bio_dev_enroll_begin")
                }
            }
            var sample = FingerprintSample(
                rawStatus: fido_bio_enroll_last_status(enroll),
                remaining: Int(fido_bio_enroll_remaining_samples(enroll)))
            onSample(sample)
            while sample.remaining > 0 {
                try awaitingTheUser { () throws(FIDOError) in
                    try FIDOError.check(
                        fido_bio_dev_enroll_continue(handle, template, enroll, timeout), "fido_bio_dev_enroll_continue")
                }
                sample = FingerprintSample(
                    rawStatus: fido_bio_enroll_last_status(enroll),
                    remaining: Int(fido_bio_enroll_remaining_samples(enroll)))
                onSample(sample)
            }
        } catch {
            if error.code != FIDOError.deviceRemoved { _ = fido_bio_dev_enroll_cancel(handle) }
            throw error
        }
        return Self.bytes(fido_bio_template_id_ptr(template), fido_bio_template_id_len(template))
    }

    /// Gives an enrolled fingerprint a name (setFriendlyName).
    public func renameFingerprint(templateID: [UInt8], name: String, pin: SecretBytes) throws(FIDOError) {
        try withTemplate(templateID, name: name) { (template) throws(FIDOError) in
            try pin.withCString { (p) throws(FIDOError) in
                try FIDOError.check(
                    fido_bio_dev_set_template_name(handle, template, p), "fido_bio_dev_set_template_name")
            }
        }
    }

    /// Removes an enrolled fingerprint (removeEnrollment); FIDO_ERR_INVALID_OPTION when the key has none with
    /// that ID.
    public func deleteFingerprint(templateID: [UInt8], pin: SecretBytes) throws(FIDOError) {
        try withTemplate(templateID, name: nil) { (template) throws(FIDOError) in
            try pin.withCString { (p) throws(FIDOError) in
                try FIDOError.check(fido_bio_dev_enroll_remove(handle, template, p), "fido_bio_dev_enroll_remove")
            }
        }
    }

    private func withTemplate(_ id: [UInt8], name: String?, _ body: (OpaquePointer) throws(FIDOError) -> Void)
        throws(FIDOError)
    {
        guard let template = fido_bio_template_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_bio_template_new")
        }
        var owned: OpaquePointer? = template
        defer { fido_bio_template_free(&owned) }
        try FIDOError.check(
            id.withUnsafeBufferPointer { fido_bio_template_set_id(template, $0.baseAddress, $0.count) },
            "fido_bio_template_set_id")
        if let name { try FIDOError.check(fido_bio_template_set_name(template, name), "fido_bio_template_set_name") }
        try body(template)
    }
}
