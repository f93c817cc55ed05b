import Cryptography
import WebAuthn

/// A credential the demo relying party registered.
public struct StoredCredential: Sendable {
    public let id: [UInt8]
    public let publicKey: PublicKey
    public let userName: String
    public let userHandle: [UInt8]
    public var signCount: UInt32

    public init(id: [UInt8], publicKey: PublicKey, userName: String, userHandle: [UInt8], signCount: UInt32) {
        self.id = id
        self.publicKey = publicKey
        self.userName = userName
        self.userHandle = userHandle
        self.signCount = signCount
    }
}

/// What a verified assertion showed.
public struct VerifiedAssertion: Sendable {
    public let flags: AuthenticatorData.Flags
    public let signCount: UInt32
}

/// Verifies a sign-in (WebAuthn L3 §7.2) against the stored credential: client data, rp.id hash, UP, the
/// signature over authenticatorData ‖ SHA-256(clientDataJSON) with the stored public key, and the counter.
public enum AssertionVerifier {
    public static func verify(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
        credential: StoredCredential, expected: ExpectedCeremony
    ) throws(VerificationError) -> VerifiedAssertion {
        try CeremonyChecks.clientData(clientDataJSON, expected: expected)
        let data = try CeremonyChecks.parseAuthenticatorData(authenticatorData)
        try CeremonyChecks.authenticatorData(data, expected: expected)
        if let userHandle, userHandle != credential.userHandle {
            throw .malformed("userHandle is not the credential's user")
        }
        let message = CeremonyChecks.signedMessage(authenticatorData: authenticatorData, clientDataJSON: clientDataJSON)
        guard credential.publicKey.verify(signature: signature, message: message) else { throw .badSignature }
        // §7.2 step 21: a counter that does not grow (unless both are 0, a key without counters) signals a clone.
        if data.signCount != 0 || credential.signCount != 0, data.signCount <= credential.signCount {
            throw .counterNotIncreased(stored: credential.signCount, received: data.signCount)
        }
        return VerifiedAssertion(flags: data.flags, signCount: data.signCount)
    }
}
