import Cryptography
import WebAuthn

/// The `prf` extension (WebAuthn L3 §10.1.4) over CTAP hmac-secret.
///
/// At creation a CTAP 2.1 key can only enable hmac-secret (evaluating at creation is CTAP 2.2's
/// hmac-secret-mc), so `prf.enabled` is reported and `eval` is not evaluated. At sign-in each input is hashed
/// into a salt, SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input), so PRF values can never collide with raw hmac-secret
/// values of other sites. The outputs are secrets: they are returned to the page and never logged.
struct PRFInputs: Equatable {
    struct Values: Equatable {
        var first: [UInt8]
        var second: [UInt8]?
    }

    struct CredentialValues: Equatable {
        var credentialID: [UInt8]
        var values: Values
    }

    var eval: Values?
    var evalByCredential: [CredentialValues] = []

    init(_ json: JSONValue, name: String) throws(WebAuthnError) {
        guard json.objectValue != nil else { throw .typeError("\(name) must be an object.") }
        if let eval = json["eval"], !eval.isNull { self.eval = try Self.values(eval, name: "\(name).eval") }
        if let byCredential = json["evalByCredential"], !byCredential.isNull {
            guard let members = byCredential.objectValue else {
                throw .typeError("\(name).evalByCredential must be an object.")
            }
            for (key, value) in members {
                // Keys are base64url credential ids; an empty or undecodable key is a SyntaxError (§10.1.4), in
                // Blink's words (validateGetPublicKeyCredentialPRFExtension).
                guard let id = Base64URL.decode(key) else {
                    throw WebAuthnError(
                        .syntax, "'prf' extension contains invalid base64url data in 'evalByCredential'")
                }
                guard !id.isEmpty else {
                    throw WebAuthnError(
                        .syntax, "'prf' extension contains an empty credential ID in 'evalByCredential'")
                }
                evalByCredential.append(
                    CredentialValues(credentialID: id, values: try Self.values(value, name: "\(name).evalByCredential"))
                )
            }
        }
    }

    private static func values(_ json: JSONValue, name: String) throws(WebAuthnError) -> Values {
        guard json.objectValue != nil else { throw .typeError("\(name) must be an object.") }
        guard let first = try ExtensionField.bytes(json, "first") else {
            throw .typeError("\(name).first is required.")
        }
        return Values(first: first, second: try ExtensionField.bytes(json, "second"))
    }

    /// Whether the page gave `evalByCredential` at all (Blink refuses even an empty one where it does not belong).
    static func hasEvalByCredential(_ json: JSONValue) -> Bool {
        json["evalByCredential"].map { !$0.isNull } ?? false
    }

    /// §10.1.4 client processing, step 2: each evalByCredential key must name one of allowCredentials (step 1,
    /// evalByCredential without allowCredentials, is refused before the inputs are read).
    func validate(allowCredentials: [[UInt8]]) throws(WebAuthnError) {
        for entry in evalByCredential where !allowCredentials.contains(entry.credentialID) {
            throw WebAuthnError(
                .syntax, "'prf' extension contains 'evalByCredential' key that doesn't match any in allowedCredentials")
        }
    }

    /// The inputs that apply to `credentialID`: its evalByCredential entry, else `eval`.
    func values(for credentialID: [UInt8]?) -> Values? {
        if let credentialID, let entry = evalByCredential.first(where: { $0.credentialID == credentialID }) {
            return entry.values
        }
        return eval
    }

    /// Whether the salt depends on which credential the key will use (so it must be chosen first).
    var needsCredentialChoice: Bool { !evalByCredential.isEmpty }

    /// The hmac-secret salt(s), concatenated, as libfido2's fido_assert_set_hmac_salt takes them.
    static func salts(_ values: Values) -> [UInt8] {
        var salt = salt(values.first)
        if let second = values.second { salt += Self.salt(second) }
        return salt
    }

    static func salt(_ input: [UInt8]) -> [UInt8] {
        Digest.sha256(Array("WebAuthn PRF".utf8) + [0] + input)
    }

    /// `prf.results` from the hmac-secret output: 32 bytes per salt.
    static func results(_ hmacOutput: [UInt8]) -> JSONValue {
        var results: [(String, JSONValue)] = [("first", .binary(Array(hmacOutput.prefix(32))))]
        if hmacOutput.count >= 64 { results.append(("second", .binary(Array(hmacOutput[32..<64])))) }
        return .object(results)
    }
}
