/// `PublicKeyCredentialCreationOptions` (§5.4) after WebIDL conversion and the client-side checks of §5.1.3
/// that need nothing but the options themselves. Origin and rp.id checks come later, from
/// `RelyingPartyIDValidator`, because they need the trusted caller.
public struct PublicKeyCredentialCreationOptions: Sendable {
    /// `id` stays nil when the page gave none; the validator then uses the origin's host.
    public var rp: (id: String?, name: String)
    public var user: (id: [UInt8], name: String, displayName: String)
    public var challenge: [UInt8]
    /// COSE algorithm identifiers in the page's order of preference, only entries of type "public-key".
    /// Empty only when the page listed entries and none was of a known type (→ `checkBeforeRelyingParty`).
    public var pubKeyCredParams: [Int]
    public var timeoutMilliseconds: Int?
    public var excludeCredentials: [PublicKeyCredentialDescriptor]
    /// "platform" or "cross-platform"; nil when absent or unknown.
    public var authenticatorAttachment: String?
    public var residentKey: ResidentKeyRequirement
    public var userVerification: UserVerificationRequirement
    public var attestation: AttestationConveyance
    public var extensions: JSONValue?

    /// ES256 then RS256: what §5.1.3 step 10 substitutes for an empty pubKeyCredParams.
    public static let defaultAlgorithms = [-7, -257]

    /// Converts the `publicKey` member of `navigator.credentials.create()` options.
    /// Throws TypeError naming the member for anything missing or of the wrong type; RangeError for more than 64
    /// excludeCredentials, whose repeated ids are dropped (`CredentialDescriptorList`). The user.id's length is
    /// `checkBeforeRelyingParty`'s, which comes after the extension inputs.
    public init(json: JSONValue) throws(WebAuthnError) {
        guard case .object = json else {
            throw .typeError("publicKey options must be a dictionary, found \(json.typeName)")
        }
        let options = try OptionsReader(json, path: "")

        let rp = try options.dictionary("rp", required: true)
        self.rp = (id: try rp.string("id"), name: try rp.requiredString("name"))

        let user = try options.dictionary("user", required: true)
        let userID = try user.requiredBufferSource("id")
        let userName = try user.requiredString("name")
        let displayName = try user.requiredString("displayName")
        self.user = (id: userID, name: userName, displayName: displayName)

        challenge = try options.requiredBufferSource("challenge")

        guard options.has("pubKeyCredParams") else { throw .typeError("pubKeyCredParams is required") }
        let params =
            try options.sequence("pubKeyCredParams") { (item, path) throws(WebAuthnError) -> Int? in
                let entry = try OptionsReader(item, path: path)
                let type = try entry.requiredString("type")
                guard let alg = try entry.long("alg") else { throw .typeError("\(path).alg is required") }
                return type == "public-key" ? alg : nil
            } ?? []
        pubKeyCredParams = options.listedCount("pubKeyCredParams") == 0 ? Self.defaultAlgorithms : params

        timeoutMilliseconds = try options.unsignedLong("timeout")
        excludeCredentials = try options.descriptors("excludeCredentials")

        let selection = try options.dictionary("authenticatorSelection")
        authenticatorAttachment = try selection.string("authenticatorAttachment").flatMap {
            $0 == "platform" || $0 == "cross-platform" ? $0 : nil
        }
        // §5.4.4: residentKey wins when it holds a known value; otherwise the legacy boolean decides.
        let requireResidentKey = try selection.bool("requireResidentKey") ?? false
        residentKey =
            try selection.string("residentKey").flatMap(ResidentKeyRequirement.init(rawValue:))
            ?? (requireResidentKey ? .required : .discouraged)
        userVerification =
            try selection.string("userVerification").flatMap(UserVerificationRequirement.init(rawValue:))
            ?? .preferred

        attestation = try options.string("attestation").flatMap(AttestationConveyance.init(member:)) ?? .none
        extensions = try options.extensions()

        // Checked once the whole dictionary converted, in Chromium's order: a malformed member is a TypeError
        // first, then an over-long list a RangeError.
        excludeCredentials = try CredentialDescriptorList.bounded(
            excludeCredentials, listed: options.listedCount("excludeCredentials"), member: "excludeCredentials")
        // An empty id names no credential (a detached buffer gives one): both browsers register past it.
        excludeCredentials.removeAll { $0.id.isEmpty }
    }

    /// What Chromium refuses once Blink has checked the extension inputs and before its browser process checks
    /// the origin and rp.id (Blink's `AuthenticationCredentialsContainer::create`): a pubKeyCredParams whose
    /// entries are all of unknown types (NotSupportedError, where its conversion to the browser's options fails),
    /// then a user.id over 64 bytes (TypeError, Chromium 156's words). An empty user.id is refused with them
    /// (TypeError): libfido2 cannot send one, although both browsers register it.
    public func checkBeforeRelyingParty() throws(WebAuthnError) {
        guard !pubKeyCredParams.isEmpty else {
            throw .notSupported("Required parameters missing in `options.publicKey`.")
        }
        guard user.id.count <= 64 else { throw .typeError("User handle exceeds 64 bytes.") }
        guard !user.id.isEmpty else { throw .typeError("user.id must be 1 to 64 bytes, found 0") }
    }
}
