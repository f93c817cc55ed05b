import CBOR

extension SoftToken {
    /// The extensions this token implements, as getInfo lists them.
    public static let supportedExtensions = ["credBlob", "credProtect", "hmac-secret", "largeBlobKey", "minPinLength"]

    /// authenticatorGetInfo (§6.4): what libfido2 reads on every fido_dev_open to decide how to talk to us.
    /// A CTAP 2.0 configuration leaves out every option and field CTAP 2.1 introduced, as such keys do.
    func getInfo() -> CBOR {
        let configuration = state.configuration
        let ctap21 = configuration.ctap21
        var options: [(CBOR, CBOR)] = [("rk", .bool(configuration.residentKeys)), ("up", true)]
        if configuration.builtInUV { options.append(("uv", .bool(hasBuiltInUVConfigured))) }
        options.append(("clientPin", .bool(state.pinHash != nil)))
        if configuration.credentialManagementPreview { options.append(("credentialMgmtPreview", true)) }
        let enrolled = !state.settings.fingerprints.isEmpty
        if configuration.bioEnrollmentPreview { options.append(("userVerificationMgmtPreview", .bool(enrolled))) }
        if ctap21 {
            options.append(("pinUvAuthToken", .bool(configuration.pinUvAuthTokenPermissions)))
            if configuration.largeBlobs { options.append(("largeBlobs", true)) }
            if hasCredentialManagement { options.append(("credMgmt", true)) }
            options.append(("makeCredUvNotRqd", .bool(!alwaysUV)))
            // A key that can toggle alwaysUv lists it either way.
            if alwaysUV || hasConfig { options.append(("alwaysUv", .bool(alwaysUV))) }
            if hasBioEnrollment { options.append(("bioEnroll", .bool(enrolled))) }
            if hasConfig { options += [("authnrCfg", true), ("setMinPINLength", true)] }
        }
        var versions: [CBOR] = []
        if u2fEnabled { versions.append("U2F_V2") }
        versions.append("FIDO_2_0")
        if configuration.credentialManagementPreview || configuration.bioEnrollmentPreview {
            versions.append("FIDO_2_1_PRE")
        }
        if ctap21 { versions.append("FIDO_2_1") }
        var info: [(CBOR, CBOR)] = [
            (1, .array(versions)),
            (2, .array(enabledExtensions.map { .text($0) })),
            (3, .bytes(configuration.aaguid)),
            (4, .map(options)),
            (5, .int(configuration.maxMessageSize)),
            (6, .array((ctap21 ? configuration.pinUvAuthProtocols : [1]).map { .int($0) })),
        ]
        if let count = configuration.maxCredentialCountInList { info.append((7, .int(count))) }
        info.append((9, ["usb"]))
        info.append((10, .array(configuration.algorithms.map { .map([("alg", .int($0)), ("type", "public-key")]) })))
        if ctap21 {
            if configuration.largeBlobs { info.append((11, .int(configuration.maxSerializedLargeBlobArray))) }
            info += [(12, .bool(state.settings.forcePINChange)), (13, .int(minPINLength)), (14, 1)]
            if enabledExtensions.contains("credBlob") { info.append((15, .int(configuration.maxCredBlobLength))) }
            if hasConfig { info.append((16, .int(Self.maxRPIDsForSetMinPINLength))) }
            info.append((20, .int(remainingDiscoverableSlots)))
        }
        return .map(info)
    }

    /// The extensions this token lists and honours.
    var enabledExtensions: [String] { state.configuration.extensions ?? Self.supportedExtensions }

    /// Whether U2F answers: CTAP 2.1 turns it off while alwaysUv is on.
    var u2fEnabled: Bool { state.configuration.u2f && !alwaysUV }
}
