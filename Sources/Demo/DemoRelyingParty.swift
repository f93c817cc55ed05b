import Cryptography
import Synchronization
import WebAuthn

/// The demo's relying party: issues options, keeps the challenges it issued (each used once) and the credentials
/// it registered, and verifies what the browser sends with `RegistrationVerifier` / `AssertionVerifier`. It
/// keeps the last verified result of each ceremony for the page and for tests (`GET /api/verified`).
public final class DemoRelyingParty: Sendable {
    public static let rpID = "localhost"
    public let origin: String

    enum Pending: Sendable {
        case registration(userName: String, userHandle: [UInt8])
        case authentication
    }

    struct State: ~Copyable {
        var pending: [[UInt8]: Pending] = [:]
        var pendingOrder: [[UInt8]] = []
        var credentials: [StoredCredential] = []
        var lastRegistration: JSONValue = .null
        var lastAuthentication: JSONValue = .null
    }

    private let state = Mutex(State())
    static let maxPending = 32
    static let maxCredentials = 64  // the most Chromium (and the bridge) puts in one allow list

    public init(port: UInt16) {
        origin = "http://\(Self.rpID):\(port)"
    }

    // MARK: options

    public func registrationOptions(userName: String) -> JSONValue {
        let userHandle = Digest.randomBytes(16)
        let challenge = issue(.registration(userName: userName, userHandle: userHandle))
        return [
            "rp": ["id": .string(Self.rpID), "name": "webauthn-bridge demo"],
            "user": [
                "id": .string(Base64URL.encode(userHandle)), "name": .string(userName),
                "displayName": .string(userName),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -8]],
            "timeout": 60000,
            // direct: the page then shows the attestation the key made ("packed" for a SoftToken).
            "attestation": "direct",
            "authenticatorSelection": ["residentKey": "discouraged", "userVerification": "discouraged"],
        ]
    }

    /// Nil when nothing is registered yet.
    public func authenticationOptions() -> JSONValue? {
        let ids = state.withLock { $0.credentials.map(\.id) }
        guard !ids.isEmpty else { return nil }
        let challenge = issue(.authentication)
        return [
            "challenge": .string(Base64URL.encode(challenge)),
            "rpId": .string(Self.rpID),
            "allowCredentials": .array(ids.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
            "userVerification": "discouraged",
            "timeout": 60000,
        ]
    }

    private func issue(_ purpose: Pending) -> [UInt8] {
        let challenge = Digest.randomBytes(32)
        state.withLock { state in
            if state.pendingOrder.count >= Self.maxPending { state.pending[state.pendingOrder.removeFirst()] = nil }
            state.pending[challenge] = purpose
            state.pendingOrder.append(challenge)
        }
        return challenge
    }

    /// The pending ceremony whose challenge the client data names, removed: a challenge verifies once. The client
    /// data is only read here to find it; `CeremonyChecks` verifies it again against what this returns.
    private func takePending(clientDataJSON: [UInt8]) throws(VerificationError) -> ([UInt8], Pending) {
        guard let challengeText = (try? JSONValue.parse(clientDataJSON))?["challenge"]?.stringValue,
            let challenge = Base64URL.decode(challengeText)
        else { throw .malformed("clientDataJSON has no challenge") }
        let found = state.withLock { state -> Pending? in
            guard let purpose = state.pending.removeValue(forKey: challenge) else { return nil }
            state.pendingOrder.removeAll { $0 == challenge }
            return purpose
        }
        guard let found else { throw .challengeMismatch }
        return (challenge, found)
    }

    // MARK: verification

    public func verifyRegistration(_ credential: CredentialFields) throws(VerificationError) -> JSONValue {
        let (challenge, purpose) = try takePending(clientDataJSON: credential.clientDataJSON)
        guard case .registration(let userName, let userHandle) = purpose else { throw .wrongType("webauthn.get") }
        guard let attestationObject = credential.attestationObject else { throw .malformed("no attestationObject") }
        let expected = ExpectedCeremony(type: .create, challenge: challenge, origin: origin, rpID: Self.rpID)
        let verified = try RegistrationVerifier.verify(
            clientDataJSON: credential.clientDataJSON, attestationObject: attestationObject, expected: expected)
        guard verified.credentialID == credential.rawID else {
            throw .malformed("rawId is not the attested credential id")
        }
        let stored = StoredCredential(
            id: verified.credentialID, publicKey: verified.publicKey, userName: userName,
            userHandle: userHandle, signCount: verified.signCount)
        let summary = VerifiedSummary.registration(verified, userName: userName, rpID: Self.rpID)
        state.withLock { state in
            state.credentials.removeAll { $0.id == stored.id }
            if state.credentials.count >= Self.maxCredentials { state.credentials.removeFirst() }
            state.credentials.append(stored)
            state.lastRegistration = summary
        }
        return summary
    }

    public func verifyAuthentication(_ credential: CredentialFields) throws(VerificationError) -> JSONValue {
        let (challenge, purpose) = try takePending(clientDataJSON: credential.clientDataJSON)
        guard case .authentication = purpose else { throw .wrongType("webauthn.create") }
        guard let authenticatorData = credential.authenticatorData, let signature = credential.signature else {
            throw .malformed("no authenticatorData or signature")
        }
        guard let stored = state.withLock({ $0.credentials.first { $0.id == credential.rawID } }) else {
            throw .unknownCredential
        }
        let expected = ExpectedCeremony(type: .get, challenge: challenge, origin: origin, rpID: Self.rpID)
        let verified = try AssertionVerifier.verify(
            clientDataJSON: credential.clientDataJSON, authenticatorData: authenticatorData, signature: signature,
            userHandle: credential.userHandle, credential: stored, expected: expected)
        let summary = VerifiedSummary.authentication(verified, credential: stored, rpID: Self.rpID)
        state.withLock { state in
            // Stored only now: a refused assertion must not move the counter.
            if let index = state.credentials.firstIndex(where: { $0.id == stored.id }) {
                state.credentials[index].signCount = verified.signCount
            }
            state.lastAuthentication = summary
        }
        return summary
    }

    /// The last verified registration and sign-in, as the page shows them.
    public var lastVerified: JSONValue {
        state.withLock { ["registration": $0.lastRegistration, "authentication": $0.lastAuthentication] }
    }
}
