import CBOR
import CFIDO2
import Secrets

/// authenticatorGetAssertion parameters, decided by the WebAuthn client layer above.
public struct AssertionRequest: Sendable {
    public var clientDataJSON: [UInt8]
    public var rpID: String
    /// Empty for a discoverable-credential request.
    public var allowList: [[UInt8]]
    public var builtInUV: Bool
    public var userPresence: Bool
    public var extensions: AssertionExtensions

    public init(
        clientDataJSON: [UInt8], rpID: String, allowList: [[UInt8]] = [], builtInUV: Bool = false,
        userPresence: Bool = true, extensions: AssertionExtensions = .init()
    ) {
        self.clientDataJSON = clientDataJSON
        self.rpID = rpID
        self.allowList = allowList
        self.builtInUV = builtInUV
        self.userPresence = userPresence
        self.extensions = extensions
    }
}

public struct AssertionExtensions: Sendable, Equatable {
    /// One or two 32-byte salts, concatenated, for hmac-secret.
    public var hmacSalt: [UInt8]?
    public var largeBlobKey = false
    public var credentialBlob = false
    public init() {}
}

/// One assertion: a discoverable request can yield several (one per account on the key).
public struct Assertion: Sendable {
    public let authenticatorData: [UInt8]
    public let signature: [UInt8]
    public let credentialID: [UInt8]
    public let userID: [UInt8]?
    public let userName: String?
    public let userDisplayName: String?
    public let hmacSecret: [UInt8]?
    public let largeBlobKey: [UInt8]?
    public let credentialBlob: [UInt8]?
}

extension Device {
    public func getAssertions(_ request: AssertionRequest, pin: SecretBytes?) throws(FIDOError) -> [Assertion] {
        try getAssertions(request, allowing: request.allowList[...], pin: pin)
    }

    /// As `getAssertions(_:pin:)`, naming `allowList` instead of the request's own list: a batch of a long list
    /// goes as a slice of it, so no array of its ids (an allocation and a retain per id) is built per request.
    public func getAssertions(
        _ request: AssertionRequest, allowing allowList: ArraySlice<[UInt8]>,
        pin: SecretBytes?
    ) throws(FIDOError) -> [Assertion] {
        guard let assert = fido_assert_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_assert_new")
        }
        var owned: OpaquePointer? = assert
        defer { fido_assert_free(&owned) }
        try configure(assert, request, allowList: allowList)
        try awaitingTheUser { () throws(FIDOError) in
            if let pin {
                try pin.withCString { (p) throws(FIDOError) in
                    try FIDOError.check(fido_dev_get_assert(handle, assert, p), "fido_dev_get_assert")
                }
            } else {
                try FIDOError.check(fido_dev_get_assert(handle, assert, nil), "fido_dev_get_assert")
            }
        }
        let onlyAllowed = allowList.count == 1 ? allowList.first : nil
        return try (0..<fido_assert_count(assert)).map { (index) throws(FIDOError) in
            try Self.assertion(assert, index, request, onlyAllowed: onlyAllowed)
        }
    }

    private func configure(_ assert: OpaquePointer, _ r: AssertionRequest, allowList: ArraySlice<[UInt8]>)
        throws(FIDOError)
    {
        try FIDOError.check(
            r.clientDataJSON.withUnsafeBufferPointer { fido_assert_set_clientdata(assert, $0.baseAddress, $0.count) },
            "fido_assert_set_clientdata")
        try FIDOError.check(fido_assert_set_rp(assert, r.rpID), "fido_assert_set_rp")
        for id in allowList {
            try FIDOError.check(
                id.withUnsafeBufferPointer { fido_assert_allow_cred(assert, $0.baseAddress, $0.count) },
                "fido_assert_allow_cred")
        }
        try FIDOError.check(
            fido_assert_set_up(assert, r.userPresence ? FIDO_OPT_TRUE : FIDO_OPT_FALSE), "fido_assert_set_up")
        if r.builtInUV { try FIDOError.check(fido_assert_set_uv(assert, FIDO_OPT_TRUE), "fido_assert_set_uv") }
        var flags: Int32 = 0
        if r.extensions.hmacSalt != nil { flags |= FIDO_EXT_HMAC_SECRET }
        if r.extensions.largeBlobKey { flags |= FIDO_EXT_LARGEBLOB_KEY }
        if r.extensions.credentialBlob { flags |= FIDO_EXT_CRED_BLOB }
        if flags != 0 { try FIDOError.check(fido_assert_set_extensions(assert, flags), "fido_assert_set_extensions") }
        if let salt = r.extensions.hmacSalt {
            try FIDOError.check(
                salt.withUnsafeBufferPointer { fido_assert_set_hmac_salt(assert, $0.baseAddress, $0.count) },
                "fido_assert_set_hmac_salt")
        }
    }

    private static func assertion(
        _ assert: OpaquePointer, _ i: Int, _ r: AssertionRequest,
        onlyAllowed: [UInt8]?
    ) throws(FIDOError) -> Assertion {
        // libfido2 hands authenticator data back CBOR-wrapped (a byte string); the signature covers the raw bytes.
        let wrapped = bytes(fido_assert_authdata_ptr(assert, i), fido_assert_authdata_len(assert, i))
        guard let authData = (try? CBOR.decode(wrapped))?.bytesValue else {
            throw FIDOError(code: FIDO_ERR_RX_INVALID_CBOR, function: "fido_assert_authdata_ptr")
        }
        var credentialID = bytes(fido_assert_id_ptr(assert, i), fido_assert_id_len(assert, i))
        // CTAP lets a key omit the credential when the allow list had exactly one entry.
        if credentialID.isEmpty, let onlyAllowed { credentialID = onlyAllowed }
        let userID = bytes(fido_assert_user_id_ptr(assert, i), fido_assert_user_id_len(assert, i))
        let hmac = bytes(fido_assert_hmac_secret_ptr(assert, i), fido_assert_hmac_secret_len(assert, i))
        let blobKey = bytes(fido_assert_largeblob_key_ptr(assert, i), fido_assert_largeblob_key_len(assert, i))
        return Assertion(
            authenticatorData: authData,
            signature: bytes(fido_assert_sig_ptr(assert, i), fido_assert_sig_len(assert, i)),
            credentialID: credentialID,
            userID: userID.isEmpty ? nil : userID,
            userName: fido_assert_user_name(assert, i).map { String(cString: $0) },
            userDisplayName: fido_assert_user_display_name(assert, i).map { String(cString: $0) },
            hmacSecret: hmac.isEmpty ? nil : hmac,
            largeBlobKey: r.extensions.largeBlobKey && !blobKey.isEmpty ? blobKey : nil,
            credentialBlob: r.extensions.credentialBlob
                ? bytes(fido_assert_blob_ptr(assert, i), fido_assert_blob_len(assert, i)) : nil)
    }
}
