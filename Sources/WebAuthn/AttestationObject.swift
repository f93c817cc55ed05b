import CBOR

/// The attestation object (§6.5.4): the CBOR map {"fmt", "attStmt", "authData"} a relying party receives from
/// `create()`. Keys are written in CTAP2 canonical order (fmt, attStmt, authData), which is also what browsers emit.
public enum AttestationObject {
    /// Packs the authenticator's attestation. `statement` may be `CBOR.raw` holding the attStmt bytes as libfido2
    /// returns them, spliced without re-encoding so the signature inside stays byte-identical.
    public static func encode(format: String, statement: CBOR, authenticatorData: [UInt8]) -> [UInt8] {
        CBOR.map([
            (.text("fmt"), .text(format)),
            (.text("attStmt"), statement),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encode()
    }

    /// Applies the page's attestation conveyance preference (§5.1.3, the step after the authenticator answered)
    /// and packs the result:
    /// - `none`: the statement is replaced by format "none" with an empty map — unless it is self attestation
    ///   ("packed", no x5c, zero AAGUID), which identifies nothing and is kept as the spec says. The AAGUID in
    ///   the authenticator data stays (it is signed, and L3 and current Chromium keep it).
    /// - `indirect`: passed on as given; this client has no anonymization CA to substitute one.
    /// - `direct`: passed on unchanged.
    public static func conveyed(
        _ preference: AttestationConveyance, format: String, statement: CBOR, authenticatorData: AuthenticatorData
    ) -> [UInt8] {
        if preference == .none,
            !isSelfAttestation(format: format, statement: statement, authenticatorData: authenticatorData)
        {
            return encode(format: "none", statement: .map([]), authenticatorData: authenticatorData.bytes)
        }
        return encode(format: format, statement: statement, authenticatorData: authenticatorData.bytes)
    }

    static func isSelfAttestation(format: String, statement: CBOR, authenticatorData: AuthenticatorData) -> Bool {
        guard format == "packed", authenticatorData.attestedCredential?.aaguid.allSatisfy({ $0 == 0 }) == true else {
            return false
        }
        let decoded: CBOR
        if case .raw(let bytes) = statement {
            guard let item = try? CBOR.decode(bytes) else { return false }
            decoded = item
        } else {
            decoded = statement
        }
        return decoded.mapValue != nil && decoded[text: "x5c"] == nil
    }
}
