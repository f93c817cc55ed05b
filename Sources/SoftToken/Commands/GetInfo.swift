import CBOR

extension SoftToken {
    /// The extensions this token implements, as getInfo lists them.
    static let supportedExtensions = ["credBlob", "credProtect", "hmac-secret", "largeBlobKey", "minPinLength"]

    /// authenticatorGetInfo (§6.4): what libfido2 reads on every fido_dev_open to decide how to talk to us.
    func getInfo() -> CBOR {
        let configuration = state.configuration
        var options: [(CBOR, CBOR)] = [
            ("rk", .bool(configuration.residentKeys)),
            ("up", true),
            ("clientPin", .bool(state.pinHash != nil)),
            ("pinUvAuthToken", .bool(configuration.pinUvAuthTokenPermissions)),
            ("largeBlobs", true),
            ("makeCredUvNotRqd", true),
        ]
        if configuration.builtInUV { options.append(("uv", true)) }
        return .map([
            (1, ["FIDO_2_0", "FIDO_2_1"]),
            (2, .array(Self.supportedExtensions.map { .text($0) })),
            (3, .bytes(configuration.aaguid)),
            (4, .map(options)),
            (5, .int(configuration.maxMessageSize)),
            (6, .array(configuration.pinUvAuthProtocols.map { .int($0) })),
            (9, ["usb"]),
            (10, [.map([("alg", -7), ("type", "public-key")]), .map([("alg", -8), ("type", "public-key")])]),
            (11, .int(configuration.maxSerializedLargeBlobArray)),
            (12, false),
            (13, .int(configuration.minPINLength)),
            (14, 1),
            (15, .int(configuration.maxCredBlobLength)),
        ])
    }
}
