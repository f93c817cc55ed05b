import Cryptography
import FIDO
import WebAuthn

/// The get() extensions this host acts on (WebAuthn L3 §10, CTAP 2.1 §12), validated before any key is
/// touched. PRF inputs and outputs are secrets: they are never logged.
struct AuthenticationExtensions {
    var prf: PRFInputs?
    /// Chromium's raw hmac-secret: one or two 32-byte salts, sent as they are.
    var hmacGetSecret: [UInt8]?
    var getCredentialBlob = false
    var largeBlob: LargeBlobRequest?

    enum LargeBlobRequest { case read, write([UInt8]) }

    init(_ json: JSONValue?, allowCredentials: [PublicKeyCredentialDescriptor]) throws(WebAuthnError) {
        guard let json else { return }
        if let input = json["prf"] { prf = try PRFInputs(input, allowCredentials: allowCredentials) }
        if let input = json["hmacGetSecret"] { hmacGetSecret = try Self.rawSalts(input) }
        getCredentialBlob = json["getCredBlob"] == .bool(true)
        if let input = json["largeBlob"] { largeBlob = try Self.largeBlobRequest(input, allowCredentials: allowCredentials) }
    }

    private static func rawSalts(_ input: JSONValue) throws(WebAuthnError) -> [UInt8] {
        guard case .binary(let salt1)? = input["salt1"], salt1.count == 32 else {
            throw WebAuthnError(name: .typeError, message: "extensions.hmacGetSecret.salt1 must be 32 bytes.")
        }
        switch input["salt2"] {
        case nil, .null?: return salt1
        case .binary(let salt2)? where salt2.count == 32: return salt1 + salt2
        default: throw WebAuthnError(name: .typeError, message: "extensions.hmacGetSecret.salt2 must be 32 bytes.")
        }
    }

    private static func largeBlobRequest(_ input: JSONValue, allowCredentials: [PublicKeyCredentialDescriptor]) throws(WebAuthnError) -> LargeBlobRequest? {
        if input["support"] != nil {
            throw WebAuthnError(name: .notSupported, message: "extensions.largeBlob.support is for create(), not get().")
        }
        let read = input["read"] == .bool(true)
        switch (read, input["write"]) {
        case (true, .some(let w)) where w != .null:
            throw WebAuthnError(name: .notSupported, message: "extensions.largeBlob cannot read and write at once.")
        case (false, .binary(let blob)?):
            guard allowCredentials.count == 1 else {
                throw WebAuthnError(name: .notSupported, message: "extensions.largeBlob.write needs exactly one allowCredentials entry.")
            }
            return .write(blob)
        case (true, _): return .read
        default: return nil
        }
    }

    /// Whether the ceremony must first learn, without a touch, which allowed credential the key holds
    /// (PRF salts chosen per credential).
    var needsCredentialPreflight: Bool { prf?.byCredential.isEmpty == false }

    /// The CTAP inputs once the credential is known (nil: discoverable or not yet known), gated on getInfo.
    func ctapInputs(for info: AuthenticatorInfo, credentialID: [UInt8]?) -> AssertionExtensions {
        var ctap = AssertionExtensions()
        if info.supportsExtension("hmac-secret") {
            ctap.hmacSalt = prf?.salts(for: credentialID) ?? hmacGetSecret
        }
        ctap.credentialBlob = getCredentialBlob && info.supportsExtension("credBlob")
        ctap.largeBlobKey = largeBlob != nil && info.supportsLargeBlobs && info.supportsExtension("largeBlobKey")
        return ctap
    }

    /// clientExtensionResults for the chosen assertion. `blob` is what a largeBlob read found, `written`
    /// whether a write succeeded.
    func outputs(_ assertion: Assertion, blob: [UInt8]?, written: Bool?) -> JSONValue {
        var results: [(String, JSONValue)] = []
        if let output = assertion.hmacSecret {
            if prf != nil {
                var values: [(String, JSONValue)] = [("first", .binary(Array(output.prefix(32))))]
                if output.count == 64 { values.append(("second", .binary(Array(output.suffix(32))))) }
                results.append(("prf", .object([("results", .object(values))])))
            } else if hmacGetSecret != nil {
                var values: [(String, JSONValue)] = [("output1", .binary(Array(output.prefix(32))))]
                if output.count == 64 { values.append(("output2", .binary(Array(output.suffix(32))))) }
                results.append(("hmacGetSecret", .object(values)))
            }
        } else if prf != nil {
            results.append(("prf", .object([])))
        }
        if getCredentialBlob { results.append(("getCredBlob", .binary(assertion.credentialBlob ?? []))) }
        switch largeBlob {
        case .read?: results.append(("largeBlob", .object(blob.map { [("blob", .binary($0))] } ?? [])))
        case .write?: results.append(("largeBlob", .object([("written", .bool(written ?? false))])))
        case nil: break
        }
        return .object(results)
    }
}

/// prf's get() inputs (L3 §10.1.4): salts are SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input), one or two per credential.
struct PRFInputs {
    var all: [UInt8]?
    var byCredential: [[UInt8]: [UInt8]] = [:]

    init(_ input: JSONValue, allowCredentials: [PublicKeyCredentialDescriptor]) throws(WebAuthnError) {
        guard case .object = input else { throw WebAuthnError(name: .typeError, message: "extensions.prf must be an object.") }
        if let eval = input["eval"], eval != .null { all = try Self.salts(eval, field: "eval") }
        guard case .object(let entries)? = input["evalByCredential"], !entries.isEmpty else { return }
        if allowCredentials.isEmpty {
            throw WebAuthnError(name: .notSupported, message: "extensions.prf.evalByCredential needs allowCredentials.")
        }
        let allowed = Set(allowCredentials.map(\.id))
        for (key, value) in entries {
            guard let id = Base64URL.decode(key), !id.isEmpty, allowed.contains(id) else {
                throw WebAuthnError(name: .syntax, message: "extensions.prf.evalByCredential key \"\(key)\" is not an allowed credential id.")
            }
            byCredential[id] = try Self.salts(value, field: "evalByCredential")
        }
    }

    func salts(for credentialID: [UInt8]?) -> [UInt8]? {
        credentialID.flatMap { byCredential[$0] } ?? all
    }

    static func salts(_ values: JSONValue, field: String) throws(WebAuthnError) -> [UInt8] {
        guard case .binary(let first)? = values["first"] else {
            throw WebAuthnError(name: .typeError, message: "extensions.prf.\(field).first must be a BufferSource.")
        }
        var salts = salt(first)
        switch values["second"] {
        case nil, .null?: break
        case .binary(let second)?: salts += salt(second)
        default: throw WebAuthnError(name: .typeError, message: "extensions.prf.\(field).second must be a BufferSource.")
        }
        return salts
    }

    static func salt(_ input: [UInt8]) -> [UInt8] {
        Digest.sha256(Array("WebAuthn PRF".utf8) + [0] + input)
    }
}
