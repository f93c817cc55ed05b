import CBOR
import CFIDO2
import Secrets

/// authenticatorMakeCredential parameters, already decided by the WebAuthn client layer above.
public struct CredentialRequest: Sendable {
    /// libfido2 hashes it; the key signs SHA-256(clientDataJSON).
    public var clientDataJSON: [UInt8]
    public var rpID: String
    public var rpName: String
    public var userID: [UInt8]
    public var userName: String
    public var userDisplayName: String
    /// The one COSE algorithm to ask for (libfido2 sends a single pubKeyCredParams entry).
    public var algorithm: Int
    public var residentKey: Bool
    /// Ask for built-in UV when no PIN is given (libfido2 then fetches a UV token with permissions).
    public var builtInUV: Bool
    public var excludeList: [[UInt8]]
    public var extensions: CredentialExtensions

    public init(
        clientDataJSON: [UInt8], rpID: String, rpName: String, userID: [UInt8], userName: String,
        userDisplayName: String, algorithm: Int, residentKey: Bool, builtInUV: Bool = false,
        excludeList: [[UInt8]] = [], extensions: CredentialExtensions = .init()
    ) {
        self.clientDataJSON = clientDataJSON
        self.rpID = rpID
        self.rpName = rpName
        self.userID = userID
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.algorithm = algorithm
        self.residentKey = residentKey
        self.builtInUV = builtInUV
        self.excludeList = excludeList
        self.extensions = extensions
    }
}

/// CTAP extension inputs for makeCredential. The caller gates each on the key's getInfo:
/// libfido2 sends whatever is enabled, supported or not.
public struct CredentialExtensions: Sendable, Equatable {
    public var hmacSecret = false
    /// credProtect level 1…3, or nil.
    public var credentialProtection: Int?
    public var largeBlobKey = false
    public var credentialBlob: [UInt8]?
    public var minPINLength = false
    public init() {}
}

/// What the key returned, in the forms the attestationObject needs.
public struct MadeCredential: Sendable {
    public let format: String
    /// Raw authenticator data (not CBOR-wrapped).
    public let authenticatorData: [UInt8]
    /// The attestation statement as encoded CBOR (a map), to splice into the attestationObject.
    public let attestationStatement: [UInt8]
    public let credentialID: [UInt8]
    public let algorithm: Int
    public let largeBlobKey: [UInt8]?
}

extension Device {
    /// Runs authenticatorMakeCredential; blocks until the user touches the key, the key refuses,
    /// the timeout set with `setTimeout` passes, or `cancel()` is called.
    public func makeCredential(_ request: CredentialRequest, pin: SecretBytes?) throws(FIDOError) -> MadeCredential {
        guard let cred = fido_cred_new() else { throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_cred_new") }
        var owned: OpaquePointer? = cred
        defer { fido_cred_free(&owned) }
        try configure(cred, request)
        try awaitingTheUser { () throws(FIDOError) in
            if let pin {
                try pin.withCString { (p) throws(FIDOError) in
                    try FIDOError.check(fido_dev_make_cred(handle, cred, p), "fido_dev_make_cred")
                }
            } else {
                try FIDOError.check(fido_dev_make_cred(handle, cred, nil), "fido_dev_make_cred")
            }
        }
        return MadeCredential(
            format: fido_cred_fmt(cred).map { String(cString: $0) } ?? "none",
            authenticatorData: Self.bytes(fido_cred_authdata_raw_ptr(cred), fido_cred_authdata_raw_len(cred)),
            attestationStatement: Self.bytes(fido_cred_attstmt_ptr(cred), fido_cred_attstmt_len(cred)),
            credentialID: Self.bytes(fido_cred_id_ptr(cred), fido_cred_id_len(cred)),
            algorithm: Int(fido_cred_type(cred)),
            largeBlobKey: request.extensions.largeBlobKey
                ? Self.bytes(fido_cred_largeblob_key_ptr(cred), fido_cred_largeblob_key_len(cred)) : nil)
    }

    private func configure(_ cred: OpaquePointer, _ r: CredentialRequest) throws(FIDOError) {
        try FIDOError.check(fido_cred_set_type(cred, Int32(r.algorithm)), "fido_cred_set_type")
        try FIDOError.check(
            r.clientDataJSON.withUnsafeBufferPointer { fido_cred_set_clientdata(cred, $0.baseAddress, $0.count) },
            "fido_cred_set_clientdata")
        try FIDOError.check(fido_cred_set_rp(cred, r.rpID, r.rpName), "fido_cred_set_rp")
        try FIDOError.check(
            r.userID.withUnsafeBufferPointer {
                fido_cred_set_user(cred, $0.baseAddress, $0.count, r.userName, r.userDisplayName, nil)
            }, "fido_cred_set_user")
        try FIDOError.check(fido_cred_set_rk(cred, r.residentKey ? FIDO_OPT_TRUE : FIDO_OPT_OMIT), "fido_cred_set_rk")
        if r.builtInUV { try FIDOError.check(fido_cred_set_uv(cred, FIDO_OPT_TRUE), "fido_cred_set_uv") }
        for id in r.excludeList {
            try FIDOError.check(
                id.withUnsafeBufferPointer { fido_cred_exclude(cred, $0.baseAddress, $0.count) }, "fido_cred_exclude")
        }
        try applyExtensions(cred, r.extensions)
    }

    private func applyExtensions(_ cred: OpaquePointer, _ e: CredentialExtensions) throws(FIDOError) {
        var flags: Int32 = 0
        if e.hmacSecret { flags |= FIDO_EXT_HMAC_SECRET }
        if e.largeBlobKey { flags |= FIDO_EXT_LARGEBLOB_KEY }
        if e.minPINLength { flags |= FIDO_EXT_MINPINLEN }
        if flags != 0 { try FIDOError.check(fido_cred_set_extensions(cred, flags), "fido_cred_set_extensions") }
        if let level = e.credentialProtection {
            try FIDOError.check(fido_cred_set_prot(cred, Int32(level)), "fido_cred_set_prot")
        }
        if let blob = e.credentialBlob {
            try FIDOError.check(
                blob.withUnsafeBufferPointer { fido_cred_set_blob(cred, $0.baseAddress, $0.count) },
                "fido_cred_set_blob")
        }
    }

    static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
