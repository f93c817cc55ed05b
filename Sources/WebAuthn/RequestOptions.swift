/// `PublicKeyCredentialRequestOptions` (§5.5) after WebIDL conversion. As for creation, the rp.id is checked
/// against the caller later by `RelyingPartyIDValidator`.
public struct PublicKeyCredentialRequestOptions: Sendable {
    public var challenge: [UInt8]
    public var timeoutMilliseconds: Int?
    /// nil when the page gave none; the validator then uses the origin's host.
    public var rpId: String?
    /// Empty means a discoverable-credential ceremony.
    public var allowCredentials: [PublicKeyCredentialDescriptor]
    public var userVerification: UserVerificationRequirement
    public var extensions: JSONValue?

    /// Converts the `publicKey` member of `navigator.credentials.get()` options; TypeError names the member,
    /// RangeError refuses more than 64 allowCredentials, whose repeated ids are dropped (`CredentialDescriptorList`).
    public init(json: JSONValue) throws(WebAuthnError) {
        guard case .object = json else {
            throw .typeError("publicKey options must be a dictionary, found \(json.typeName)")
        }
        let options = try OptionsReader(json, path: "")
        challenge = try options.requiredBufferSource("challenge")
        timeoutMilliseconds = try options.unsignedLong("timeout")
        rpId = try options.string("rpId")
        allowCredentials = try options.descriptors("allowCredentials")
        userVerification =
            try options.string("userVerification").flatMap(UserVerificationRequirement.init(rawValue:))
            ?? .preferred
        extensions = try options.extensions()
        // After the whole dictionary, as Chromium checks the list's size once it is converted.
        allowCredentials = try CredentialDescriptorList.bounded(
            allowCredentials, listed: options.listedCount("allowCredentials"), member: "allowCredentials")
    }
}
