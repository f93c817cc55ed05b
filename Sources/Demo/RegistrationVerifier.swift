import CBOR
import Cryptography
import WebAuthn

/// What a verified registration showed, and the credential to store.
public struct VerifiedRegistration: Sendable {
    public let credentialID: [UInt8]
    public let publicKey: PublicKey
    public let algorithm: Int
    public let flags: AuthenticatorData.Flags
    public let signCount: UInt32
    public let aaguid: [UInt8]
    public let attestationFormat: String
    /// How the attestation statement was checked, in words for the page.
    public let attestation: String
}

/// Verifies a registration (WebAuthn L3 §7.1): client data, rp.id hash, UP, attested credential data, and the
/// attestation statement's signature for the formats a key through the bridge gives ("packed", "none").
/// Trust in the attestation certificate (a vendor's root) is not judged: the demo has no list of roots.
public enum RegistrationVerifier {
    public static func verify(
        clientDataJSON: [UInt8], attestationObject: [UInt8], expected: ExpectedCeremony
    ) throws(VerificationError) -> VerifiedRegistration {
        try CeremonyChecks.clientData(clientDataJSON, expected: expected)
        let object: CBOR
        do { object = try CBOR.decode(attestationObject) } catch {
            throw .malformed("attestationObject is not CBOR (\(error))")
        }
        guard let format = object[text: "fmt"]?.textValue, let statement = object[text: "attStmt"],
            statement.mapValue != nil,
            let authDataBytes = object[text: "authData"]?.bytesValue
        else {
            throw .malformed("attestationObject lacks fmt, attStmt or authData")
        }
        let data = try CeremonyChecks.parseAuthenticatorData(authDataBytes)
        try CeremonyChecks.authenticatorData(data, expected: expected)
        guard let credential = data.attestedCredential else {
            throw .malformed("no attested credential data (AT flag)")
        }
        guard let publicKey = credential.publicKey else {
            throw .malformed("a credential public key of an unsupported type")
        }
        let message = CeremonyChecks.signedMessage(authenticatorData: authDataBytes, clientDataJSON: clientDataJSON)
        let attestation = try checkStatement(
            format: format, statement: statement, message: message, credentialKey: publicKey)
        return VerifiedRegistration(
            credentialID: credential.credentialID, publicKey: publicKey, algorithm: credential.algorithm,
            flags: data.flags,
            signCount: data.signCount, aaguid: credential.aaguid, attestationFormat: format, attestation: attestation)
    }

    static func checkStatement(format: String, statement: CBOR, message: [UInt8], credentialKey: PublicKey)
        throws(VerificationError) -> String
    {
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else {
                throw .attestation("format \"none\" with a non-empty statement")
            }
            return "none (the browser or the page asked for no attestation)"
        case "packed":
            return try checkPacked(statement, message: message, credentialKey: credentialKey)
        default:
            return "format \"\(format)\": statement not checked by this demo"
        }
    }

    /// §8.2: with x5c, the signature verifies with the first certificate's key; without, it is self attestation
    /// and verifies with the credential's own key, whose algorithm it must name.
    static func checkPacked(_ statement: CBOR, message: [UInt8], credentialKey: PublicKey) throws(VerificationError)
        -> String
    {
        guard let algorithm = statement[text: "alg"]?.intValue, let signature = statement[text: "sig"]?.bytesValue
        else {
            throw .attestation("packed statement lacks alg or sig")
        }
        if let chain = statement[text: "x5c"]?.arrayValue {
            guard let leaf = chain.first?.bytesValue,
                let key = try? PublicKey.fromCertificate(leaf, algorithm: algorithm)
            else {
                throw .attestation("packed x5c[0] is not a certificate with a usable key")
            }
            guard key.verify(signature: signature, message: message) else {
                throw .attestation("packed signature does not verify with x5c[0]")
            }
            return "packed, signature valid with the attestation certificate (its issuer is not checked)"
        }
        guard algorithm == credentialKey.algorithm else {
            throw .attestation("self attestation names alg \(algorithm), the key is \(credentialKey.algorithm)")
        }
        guard credentialKey.verify(signature: signature, message: message) else {
            throw .attestation("self attestation signature does not verify")
        }
        return "packed self attestation, signature valid with the credential key"
    }
}
