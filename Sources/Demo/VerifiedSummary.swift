import Cryptography
import WebAuthn

/// What the server verified, as the demo page shows it and tests read it.
enum VerifiedSummary {
    static func registration(_ verified: VerifiedRegistration, userName: String, rpID: String) -> JSONValue {
        [
            "ceremony": "registration",
            "user": .string(userName),
            "credentialId": .string(Base64URL.encode(verified.credentialID)),
            "algorithm": .string(algorithmName(verified.algorithm)),
            "aaguid": .string(hex(verified.aaguid)),
            "attestationFormat": .string(verified.attestationFormat),
            "attestation": .string(verified.attestation),
        ]
            + common(
                verified.flags, signCount: verified.signCount, rpID: rpID,
                // A registration is signed only by its attestation statement; format "none" carries no signature.
                signatureValid: verified.attestationFormat == "packed"
                    ? .bool(true) : .string("no signature (attestation \"\(verified.attestationFormat)\")"))
    }

    static func authentication(_ verified: VerifiedAssertion, credential: StoredCredential, rpID: String) -> JSONValue {
        [
            "ceremony": "authentication",
            "user": .string(credential.userName),
            "credentialId": .string(Base64URL.encode(credential.id)),
            "previousCounter": .number(Double(credential.signCount)),
        ] + common(verified.flags, signCount: verified.signCount, rpID: rpID, signatureValid: true)
    }

    /// Every check that failed threw before a summary is made, so the checks below are all passed ones.
    private static func common(
        _ flags: AuthenticatorData.Flags, signCount: UInt32, rpID: String, signatureValid: JSONValue
    ) -> [(String, JSONValue)] {
        [
            ("origin", "matches this server's origin"),
            ("challenge", "matches the one this server issued (used once)"),
            ("rpId", .string(rpID)),
            ("rpIdHash", .string(hex(Digest.sha256(Array(rpID.utf8))))),
            ("rpIdHashValid", true),
            (
                "flags",
                [
                    "UP": .bool(flags.userPresent), "UV": .bool(flags.userVerified), "BE": .bool(flags.backupEligible),
                    "BS": .bool(flags.backedUp), "AT": .bool(flags.attestedCredentialData),
                    "ED": .bool(flags.extensionData),
                ]
            ),
            ("signatureValid", signatureValid),
            ("counter", .number(Double(signCount))),
        ]
    }

    static func algorithmName(_ algorithm: Int) -> String {
        switch algorithm {
        case -7: "ES256"
        case -8: "EdDSA"
        case -35: "ES384"
        case -257: "RS256"
        default: "COSE \(algorithm)"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

private func + (lhs: JSONValue, rhs: [(String, JSONValue)]) -> JSONValue {
    guard case .object(let members) = lhs else { return lhs }
    return .object(members + rhs)
}
