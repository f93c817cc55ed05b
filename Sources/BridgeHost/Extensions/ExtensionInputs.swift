import WebAuthn

/// The page's `extensions` member, read and validated as WebAuthn L3 §10 and CTAP 2.1 §12 define each input,
/// before any key is touched. Unknown extension identifiers are ignored, as browsers do; a known one with a
/// malformed value is a TypeError, as the IDL conversion in a browser would raise. An input the request cannot
/// use is refused with Chromium 156's name and words, where Chromium refuses it: Blink's refusals
/// (`AuthenticationCredentialsContainer::create`/`get`, authentication_credentials_container.cc) when the inputs
/// are read, before the ceremony checks the origin and rp.id; the browser process's (largeBlob's read with write,
/// a write without one allowed credential: `ContinueGetAssertionAfterRpIdCheck`, authenticator_common_impl.cc)
/// only once those passed (`refusalAfterRelyingParty`). Firefox 153 checks the rp.id before all of them.
struct RegistrationExtensionInputs: Equatable, Sendable {
    enum LargeBlobSupport: Equatable { case required, preferred }

    var credProps = false
    /// `prf` was present (its `eval` cannot be evaluated at creation by a CTAP 2.1 key).
    var prf = false
    var hmacCreateSecret = false
    var largeBlob: LargeBlobSupport?
    var credBlob: [UInt8]?
    var credentialProtection: CredentialProtectionPolicy?
    var enforceCredentialProtection = false
    var minPinLength = false
    var appidExclude: String?

    init() {}

    init(_ json: JSONValue?) throws(WebAuthnError) {
        guard let json, !json.isNull else { return }
        guard json.objectValue != nil else { throw .typeError("extensions must be an object.") }
        // Blink's refusals first, in its order (appid, largeBlob's read and write, prf; between appid and largeBlob
        // an appidExclude that is no URL, and before evalByCredential a prf input over 256 bytes: Chromium's alone,
        // refused by the page world, page/webidl.js). Both browsers refuse any appid at create (Firefox 153 with
        // the same name, "Operation is not supported").
        if let appid = json["appid"], !appid.isNull {
            throw .notSupported(
                "The 'appid' extension is only valid when requesting an assertion for a pre-existing credential that was registered using the legacy FIDO U2F API."
            )
        }
        let large = json["largeBlob"]
        if let large {
            guard large.objectValue != nil else { throw .typeError("largeBlob must be an object.") }
            for member in ["read", "write"] where large[member] != nil {
                throw .notSupported(
                    "The 'largeBlob' extension's '\(member)' parameter is only valid when requesting an assertion")
            }
        }
        if let prf = json["prf"] {
            if PRFInputs.hasEvalByCredential(prf) {
                throw .notSupported("The 'evalByCredential' field cannot be set when creating a credential.")
            }
            _ = try PRFInputs(prf, name: "prf")
            self.prf = true
        }
        credProps = try ExtensionField.bool(json, "credProps") ?? false
        hmacCreateSecret = try ExtensionField.bool(json, "hmacCreateSecret") ?? false
        if let large {
            let support = try ExtensionField.string(large, "support", in: "largeBlob")
            largeBlob = support == "required" ? .required : .preferred
        }
        credBlob = try ExtensionField.bytes(json, "credBlob")
        if let policy = try ExtensionField.string(json, "credentialProtectionPolicy", in: "extensions") {
            // Chromium 156 refuses a policy it does not know with this text; Firefox 153's conversion already did.
            guard let known = CredentialProtectionPolicy(rawValue: policy) else {
                throw .notSupported("Required parameters missing in `options.publicKey`.")
            }
            credentialProtection = known
        }
        enforceCredentialProtection = try ExtensionField.bool(json, "enforceCredentialProtectionPolicy") ?? false
        minPinLength = try ExtensionField.bool(json, "minPinLength") ?? false
        appidExclude = try ExtensionField.string(json, "appidExclude", in: "extensions")
    }
}

struct AuthenticationExtensionInputs: Equatable, Sendable {
    enum LargeBlobOperation: Equatable {
        case read
        case write([UInt8])
    }

    var prf: PRFInputs?
    /// Chromium's raw hmac-secret: one or two 32-byte salts, sent unhashed.
    var hmacGetSecret: [[UInt8]]?
    var largeBlob: LargeBlobOperation?
    var getCredBlob = false
    var appid: String?
    /// What Chromium's browser process refuses of these inputs, which the ceremony throws once the origin, rp.id
    /// and AppID passed (a request also wrong in one of those gets its SecurityError, as in Chromium).
    private(set) var refusalAfterRelyingParty: WebAuthnError?

    init() {}

    init(_ json: JSONValue?, allowCredentials: [[UInt8]]) throws(WebAuthnError) {
        guard let json, !json.isNull else { return }
        guard json.objectValue != nil else { throw .typeError("extensions must be an object.") }
        // Blink's refusals, in its order (an appid that is no URL first, and a largeBlob write over 2 KiB before
        // prf: Chromium's alone, refused by the page world, page/webidl.js). As Chromium 156 (Firefox 153: the
        // same name, "Operation is not supported").
        if try ExtensionField.bool(json, "credProps") == true {
            throw .notSupported("The 'credProps' extension is only valid when creating a credential")
        }
        let large = try json["largeBlob"].map { (large) throws(WebAuthnError) in try Self.largeBlob(large) }
        if let prf = json["prf"] {
            if PRFInputs.hasEvalByCredential(prf), allowCredentials.isEmpty {
                throw .notSupported("'prf' extension has 'evalByCredential' with an empty allow list")
            }
            let inputs = try PRFInputs(prf, name: "prf")
            try inputs.validate(allowCredentials: allowCredentials)
            self.prf = inputs
        }
        if let hmac = json["hmacGetSecret"] {
            guard hmac.objectValue != nil else { throw .typeError("hmacGetSecret must be an object.") }
            guard let salt1 = try ExtensionField.bytes(hmac, "salt1") else {
                throw .typeError("hmacGetSecret.salt1 is required.")
            }
            var salts = [salt1]
            if let salt2 = try ExtensionField.bytes(hmac, "salt2") { salts.append(salt2) }
            guard salts.allSatisfy({ $0.count == 32 }) else {
                throw .typeError("hmacGetSecret salts must be 32 bytes each.")
            }
            hmacGetSecret = salts
        }
        if prf != nil, hmacGetSecret != nil {
            throw .notSupported("prf and hmacGetSecret cannot be used in the same request.")
        }
        getCredBlob = try ExtensionField.bool(json, "getCredBlob") ?? false
        appid = try ExtensionField.string(json, "appid", in: "extensions")
        switch (large?.read ?? false, large?.write) {
        case (true, _?):
            refusalAfterRelyingParty = .notSupported(
                "Only one of the 'largeBlob' extension's 'read' and 'write' parameters is allowed at a time")
        case (true, nil): largeBlob = .read
        case (false, let blob?):
            guard allowCredentials.count == 1 else {
                refusalAfterRelyingParty = .notSupported(
                    "The 'largeBlob' extension's 'write' parameter can only be used with a single credential present on 'allowCredentials'"
                )
                break
            }
            largeBlob = .write(blob)
        case (false, nil): break
        }
    }

    /// `largeBlob` at sign-in, as Blink checks it before the request leaves the page's renderer (its 2 KiB
    /// limit on a write is Chromium's alone: the page world applies it, page/webidl.js).
    private static func largeBlob(_ large: JSONValue) throws(WebAuthnError) -> (read: Bool, write: [UInt8]?) {
        guard large.objectValue != nil else { throw .typeError("largeBlob must be an object.") }
        if large["support"] != nil {
            throw .notSupported(
                "The 'largeBlob' extension's 'support' parameter is only valid when creating a credential")
        }
        return (try ExtensionField.bool(large, "read") ?? false, try ExtensionField.bytes(large, "write"))
    }
}

/// Typed reads of one extension member, with the TypeError a browser's IDL conversion would raise.
enum ExtensionField {
    /// WebIDL `boolean` never throws: any value converts as JavaScript's ToBoolean does, so a page passing
    /// `1` or `"yes"` gets what it gets in a browser.
    static func bool(_ object: JSONValue, _ name: String) throws(WebAuthnError) -> Bool? {
        guard let value = object[name], !value.isNull else { return nil }
        switch value {
        case .bool(let b): return b
        case .number(let n): return n != 0 && !n.isNaN
        case .string(let s): return !s.isEmpty
        case .null: return false
        case .binary, .array, .object: return true
        }
    }

    static func bytes(_ object: JSONValue, _ name: String) throws(WebAuthnError) -> [UInt8]? {
        guard let value = object[name], !value.isNull else { return nil }
        guard let bytes = value.binaryValue else { throw .typeError("\(name) must be a BufferSource.") }
        return bytes
    }

    static func string(_ object: JSONValue, _ name: String, in parent: String) throws(WebAuthnError) -> String? {
        guard let value = object[name], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw .typeError("\(parent).\(name) must be a string.") }
        return string
    }
}
