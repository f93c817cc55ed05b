import WebAuthn

/// The fields of a PublicKeyCredential as the demo page posts them (its toJSON() form: base64url strings).
public struct CredentialFields: Sendable {
    public let rawID: [UInt8]
    public let clientDataJSON: [UInt8]
    public let attestationObject: [UInt8]?
    public let authenticatorData: [UInt8]?
    public let signature: [UInt8]?
    public let userHandle: [UInt8]?

    public init(
        rawID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8]? = nil, authenticatorData: [UInt8]? = nil,
        signature: [UInt8]? = nil, userHandle: [UInt8]? = nil
    ) {
        self.rawID = rawID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    /// Reads {"rawId", "type": "public-key", "response": {...}}; every binary member must be base64url.
    public init(json: JSONValue) throws(VerificationError) {
        guard json["type"]?.stringValue == "public-key" else { throw .malformed("type is not \"public-key\"") }
        guard let response = json["response"], response.objectValue != nil else {
            throw .malformed("no response object")
        }
        func bytes(_ value: JSONValue?, _ name: String) throws(VerificationError) -> [UInt8]? {
            guard let value, !value.isNull else { return nil }
            guard let text = value.stringValue, let decoded = Base64URL.decode(text) else {
                throw .malformed("\(name) is not base64url")
            }
            return decoded
        }
        func required(_ value: JSONValue?, _ name: String) throws(VerificationError) -> [UInt8] {
            guard let decoded = try bytes(value, name) else { throw .malformed("\(name) is missing") }
            return decoded
        }
        rawID = try required(json["rawId"], "rawId")
        clientDataJSON = try required(response["clientDataJSON"], "clientDataJSON")
        attestationObject = try bytes(response["attestationObject"], "attestationObject")
        authenticatorData = try bytes(response["authenticatorData"], "authenticatorData")
        signature = try bytes(response["signature"], "signature")
        // An empty user handle is none (§5.2.2: a non-discoverable credential's authenticator may return none).
        userHandle = try bytes(response["userHandle"], "userHandle").flatMap { $0.isEmpty ? nil : $0 }
    }
}
