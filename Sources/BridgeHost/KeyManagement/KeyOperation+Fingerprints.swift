import FIDO
import WebAuthn

/// `fingerprints`, `fingerprint-rename`, `fingerprint-delete`: the key's bio enrollment (CTAP 2.1 §6.7), each with
/// the PIN. Template IDs travel in base64url; a fingerprint's data never leaves the key.
extension KeyOperation {
    func listFingerprints(on device: Device) throws(WebAuthnError) -> JSONValue {
        try requireBioEnrollment(device)
        let found = try withPIN(on: device) { (device, pin) throws(FIDOError) in try device.fingerprints(pin: pin) }
        return .array(
            found.map { finger in
                var fields: [(String, JSONValue)] = [("templateId", .string(Base64URL.encode(finger.templateID)))]
                if let name = finger.name { fields.append(("name", .string(name))) }
                return .object(fields)
            })
    }

    func renameFingerprint(on device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        let id = try Self.bytes(frame, "templateId")
        guard let name = try Self.name(frame, "name") else {
            throw WebAuthnError(name: .typeError, message: "The request's \"name\" is empty.")
        }
        try requireBioEnrollment(device)
        try withPIN(on: device) { (device, pin) throws(FIDOError) in
            try device.renameFingerprint(templateID: id, name: name, pin: pin)
        }
        return .string(Base64URL.encode(id))
    }

    func deleteFingerprint(on device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        let id = try Self.bytes(frame, "templateId")
        try requireBioEnrollment(device)
        try withPIN(on: device) { (device, pin) throws(FIDOError) in
            try device.deleteFingerprint(templateID: id, pin: pin)
        }
        return .string(Base64URL.encode(id))
    }

    /// One touch of the sensor per sample, each reported (`enroll-fingerprint`: the samples left, what the reader
    /// said); then the name, if the page gave one. A cancel ends the enrollment on the key too.
    func addFingerprint(on device: Device, frame: JSONValue) throws(WebAuthnError) -> JSONValue {
        let name = try Self.name(frame, "name")
        try requireBioEnrollment(device)
        let id = try withPIN(on: device) { (device, pin) throws(FIDOError) -> [UInt8] in
            environment.replies.status(controller.id, .enrollFingerprint)
            let id = try device.enrollFingerprint(pin: pin) { sample in
                environment.replies.status(
                    controller.id, .enrollFingerprint,
                    extra: [
                        (StatusField.samplesLeft.rawValue, .number(Double(sample.remaining))),
                        (StatusField.sample.rawValue, .string(sample.status?.specName ?? "UNKNOWN")),
                    ])
            }
            if let name { try device.renameFingerprint(templateID: id, name: name, pin: pin) }
            return id
        }
        return .string(Base64URL.encode(id))
    }

    private func requireBioEnrollment(_ device: Device) throws(WebAuthnError) {
        guard device.isFIDO2, device.supportsBioEnrollment else {
            throw WebAuthnError(name: .notSupported, message: "This key has no fingerprint reader.")
        }
    }
}
