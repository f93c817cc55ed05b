/// The `credential` member of a result frame: what the extension turns into a PublicKeyCredential. Member names
/// follow L3's RegistrationResponseJSON / AuthenticationResponseJSON (§5.1.8, §5.1.9) so the page-side code can
/// also serve `toJSON()`, except that binary values are `.binary` (→ `{binaryKey: …}` on the wire) rather than strings.
public enum CredentialJSON {
    /// A security key reached over USB/NFC/BLE is always a roaming authenticator.
    public static let attachment = "cross-platform"

    /// The result of `create()`. `publicKey` (SPKI DER) is null when the key type cannot be expressed as SPKI;
    /// `publicKeyAlgorithm` is the COSE `alg` of the credential key.
    public static func registration(
        credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8],
        authenticatorData: AuthenticatorData,
        transports: [String], extensionResults: JSONValue
    ) -> JSONValue {
        let attested = authenticatorData.attestedCredential
        let publicKey: JSONValue = attested?.publicKey.map { .binary($0.spkiDER) } ?? .null
        let algorithm: JSONValue = attested.map { .number(Double($0.algorithm)) } ?? .null
        return credential(
            credentialID, extensionResults: extensionResults,
            response: [
                ("clientDataJSON", .binary(clientDataJSON)),
                ("attestationObject", .binary(attestationObject)),
                ("authenticatorData", .binary(authenticatorData.bytes)),
                ("transports", .array(transports.map(JSONValue.string))),
                ("publicKey", publicKey),
                ("publicKeyAlgorithm", algorithm),
            ])
    }

    /// The result of `get()`. `userHandle` is null when the authenticator returned none (non-discoverable
    /// credentials usually do not).
    public static func assertion(
        credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?, extensionResults: JSONValue
    ) -> JSONValue {
        credential(
            credentialID, extensionResults: extensionResults,
            response: [
                ("clientDataJSON", .binary(clientDataJSON)),
                ("authenticatorData", .binary(authenticatorData)),
                ("signature", .binary(signature)),
                ("userHandle", userHandle.map(JSONValue.binary) ?? .null),
            ])
    }

    static func credential(_ id: [UInt8], extensionResults: JSONValue, response: [(String, JSONValue)]) -> JSONValue {
        .object([
            ("type", "public-key"),
            ("id", .string(Base64URL.encode(id))),
            ("rawId", .binary(id)),
            ("authenticatorAttachment", .string(attachment)),
            ("response", .object(response)),
            ("clientExtensionResults", extensionResults),
        ])
    }
}

/// The credProps extension (§10.1.3): a client-only extension that tells the relying party whether the new
/// credential is discoverable. Whether it is depends on what the host asked the key for, so the host decides
/// `rk`; this type only reads the input and shapes the output.
public enum CredProps {
    /// True when the page asked for credProps (`extensions.credProps === true`).
    public static func isRequested(_ extensions: JSONValue?) -> Bool {
        extensions?["credProps"] == .bool(true)
    }

    /// `{"rk": true|false}`, or `{}` when the client cannot tell (the spec lets it omit `rk`).
    public static func output(residentKey: Bool?) -> JSONValue {
        residentKey.map { .object([("rk", .bool($0))]) } ?? .object([])
    }
}
