/// Chooses the COSE algorithms offered to the authenticator (§5.1.3 step 10 and the authenticatorMakeCredential
/// input credTypesAndPubKeyAlgs).
public enum AlgorithmSelection {
    /// The page's algorithms, in the page's order of preference, restricted to what the client stack and key
    /// support, without duplicates. When nothing is left, what Chromium 156 and Firefox 153 answer for algorithms
    /// their authenticator does not have: NotAllowedError. (Listed entries none of whose type is "public-key"
    /// were refused before, `PublicKeyCredentialCreationOptions.checkBeforeRelyingParty`.)
    public static func choose(requested: [Int], supported: Set<Int>) throws(WebAuthnError) -> [Int] {
        var seen = Set<Int>()
        let chosen = requested.filter { supported.contains($0) && seen.insert($0).inserted }
        guard !chosen.isEmpty else {
            let asked = requested.map(String.init).joined(separator: ", ")
            throw .notAllowed(
                "None of the requested public key algorithms (\(asked)) is supported by this security key")
        }
        return chosen
    }

    /// Readable names for the algorithms this project meets, for messages and logs.
    public static func name(of algorithm: Int) -> String {
        switch algorithm {
        case -7: return "ES256"
        case -8: return "EdDSA"
        case -35: return "ES384"
        case -36: return "ES512"
        case -257: return "RS256"
        default: return "COSE algorithm \(algorithm)"
        }
    }
}
