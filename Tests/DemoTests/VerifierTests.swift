import CBOR
import Cryptography
import Demo
import Testing
import WebAuthn

/// The demo relying party's verifiers, fed responses signed here with a real key: the valid one passes and each
/// tampered part is refused with its own error.
@Suite struct VerifierTests {
    static let origin = "http://localhost:8123"
    static let challenge: [UInt8] = Array(0..<32)
    let key: SigningKey
    let publicKey: PublicKey
    let credentialID: [UInt8] = Array(repeating: 0xC1, count: 32)

    init() throws {
        key = try SigningKey.generate(.es256)
        publicKey = try PublicKey.fromCOSE(Dictionary(uniqueKeysWithValues: key.coseKey))
    }

    static func expected(_ type: ClientDataType) -> ExpectedCeremony {
        ExpectedCeremony(type: type, challenge: challenge, origin: origin, rpID: "localhost")
    }

    static func clientData(type: String = "webauthn.get", challenge: [UInt8] = challenge, origin: String = origin)
        -> [UInt8]
    {
        Array(
            #"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":false}"#
                .utf8)
    }

    static func authData(rpID: String = "localhost", flags: UInt8 = 0x01, counter: UInt32 = 5, attested: [UInt8] = [])
        -> [UInt8]
    {
        Digest.sha256(Array(rpID.utf8)) + [flags] + withUnsafeBytes(of: counter.bigEndian, Array.init) + attested
    }

    func credential(signCount: UInt32 = 4) -> StoredCredential {
        StoredCredential(
            id: credentialID, publicKey: publicKey, userName: "alice", userHandle: [1, 2, 3], signCount: signCount)
    }

    func assertion(
        clientData: [UInt8] = clientData(), authData: [UInt8] = authData(), signature: [UInt8]? = nil,
        credential: StoredCredential? = nil
    ) throws -> VerifiedAssertion {
        let signed = try signature ?? key.sign(authData + Digest.sha256(clientData))
        return try AssertionVerifier.verify(
            clientDataJSON: clientData, authenticatorData: authData, signature: signed,
            userHandle: [1, 2, 3], credential: credential ?? self.credential(), expected: Self.expected(.get))
    }

    @Test func acceptsAValidAssertion() throws {
        let verified = try assertion()
        #expect(verified.signCount == 5)
        #expect(verified.flags.userPresent)
        #expect(!verified.flags.userVerified)
    }

    @Test func refusesATamperedSignature() throws {
        let data = Self.authData()
        let client = Self.clientData()
        var signature = try key.sign(data + Digest.sha256(client))
        signature[signature.count - 1] ^= 0x01
        #expect(throws: VerificationError.badSignature) { try assertion(signature: signature) }
    }

    @Test func refusesASignatureOverOtherAuthenticatorData() throws {
        let signature = try key.sign(Self.authData(counter: 6) + Digest.sha256(Self.clientData()))
        #expect(throws: VerificationError.badSignature) { try assertion(signature: signature) }
    }

    @Test func refusesAnotherChallenge() {
        #expect(throws: VerificationError.challengeMismatch) {
            try assertion(clientData: Self.clientData(challenge: Array(repeating: 7, count: 32)))
        }
    }

    @Test func refusesAnotherOrigin() {
        #expect(throws: VerificationError.originMismatch("http://localhost:9999")) {
            try assertion(clientData: Self.clientData(origin: "http://localhost:9999"))
        }
    }

    @Test func refusesTheWrongType() {
        #expect(throws: VerificationError.wrongType("webauthn.create")) {
            try assertion(clientData: Self.clientData(type: "webauthn.create"))
        }
    }

    @Test func refusesAnotherRPIDHash() {
        #expect(throws: VerificationError.rpIDHashMismatch) {
            try assertion(authData: Self.authData(rpID: "example.com"))
        }
    }

    @Test func refusesWithoutUserPresence() {
        #expect(throws: VerificationError.userNotPresent) { try assertion(authData: Self.authData(flags: 0x04)) }
    }

    @Test func refusesACounterThatDidNotGrow() {
        #expect(throws: VerificationError.counterNotIncreased(stored: 5, received: 5)) {
            try assertion(credential: credential(signCount: 5))
        }
    }

    @Test func acceptsZeroCountersFromAKeyWithoutCounters() throws {
        #expect(try assertion(authData: Self.authData(counter: 0), credential: credential(signCount: 0)).signCount == 0)
    }

    // MARK: registration

    func attestationObject(
        format: String = "packed", clientData: [UInt8], flags: UInt8 = 0x41, rpID: String = "localhost",
        tamper: Bool = false
    ) throws -> [UInt8] {
        let cose = CBOR.map(key.coseKey.map { (CBOR.int($0.0), $0.1.cbor) })
        let attested = [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialID.count)] + credentialID + cose.encode()
        let data = Self.authData(rpID: rpID, flags: flags, counter: 0, attested: attested)
        var signature = try key.sign(data + Digest.sha256(clientData))
        if tamper { signature[8] ^= 0x01 }
        let statement: CBOR =
            format == "none" ? .map([]) : .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))])
        return AttestationObject.encode(format: format, statement: statement, authenticatorData: data)
    }

    @Test func acceptsAPackedSelfAttestedRegistration() throws {
        let client = Self.clientData(type: "webauthn.create")
        let verified = try RegistrationVerifier.verify(
            clientDataJSON: client, attestationObject: attestationObject(clientData: client),
            expected: Self.expected(.create))
        #expect(verified.credentialID == credentialID)
        #expect(verified.attestationFormat == "packed")
        #expect(verified.publicKey.spkiDER == publicKey.spkiDER)
    }

    @Test func refusesATamperedAttestationSignature() throws {
        let client = Self.clientData(type: "webauthn.create")
        #expect(throws: VerificationError.attestation("self attestation signature does not verify")) {
            try RegistrationVerifier.verify(
                clientDataJSON: client, attestationObject: attestationObject(clientData: client, tamper: true),
                expected: Self.expected(.create))
        }
    }

    @Test func refusesARegistrationForAnotherRPOrWithoutPresence() throws {
        let client = Self.clientData(type: "webauthn.create")
        #expect(throws: VerificationError.rpIDHashMismatch) {
            try RegistrationVerifier.verify(
                clientDataJSON: client, attestationObject: attestationObject(clientData: client, rpID: "evil.example"),
                expected: Self.expected(.create))
        }
        #expect(throws: VerificationError.userNotPresent) {
            try RegistrationVerifier.verify(
                clientDataJSON: client, attestationObject: attestationObject(clientData: client, flags: 0x40),
                expected: Self.expected(.create))
        }
    }

    @Test func refusesARegistrationWithAnotherChallenge() throws {
        let client = Self.clientData(type: "webauthn.create", challenge: [9])
        #expect(throws: VerificationError.challengeMismatch) {
            try RegistrationVerifier.verify(
                clientDataJSON: client, attestationObject: attestationObject(clientData: client),
                expected: Self.expected(.create))
        }
    }
}

extension COSEValue {
    fileprivate var cbor: CBOR {
        switch self {
        case .int(let value): .int(value)
        case .bytes(let bytes): .bytes(bytes)
        }
    }
}
