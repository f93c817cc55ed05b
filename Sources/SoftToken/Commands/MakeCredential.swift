import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SoftToken {
    /// authenticatorMakeCredential (CTAP 2.1 §6.1.2), in the spec's order of checks.
    ///
    /// Everything up to `collectUserPresence` only reads state, because the command is re-run once the simulated
    /// user has touched (see `CommandOutcome.awaitingUser`).
    func makeCredential(_ p: CBOR, userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        let pinUvAuthParam = try p.bytes(8)
        let protocolVersion = try p.int(9)

        // Step 1: a zero-length pinUvAuthParam is the "touch to select" probe (fido_dev_get_touch_begin).
        if let param = pinUvAuthParam, param.isEmpty {
            try collectUserPresence(userTouched: userTouched)
            throw state.pinHash == nil ? .pinNotSet : .pinInvalid
        }
        guard let clientDataHash = try p.bytes(1), let rp = try p.map(2), let user = try p.map(3),
            let credentialParameters = try p.array(4)
        else { throw .missingParameter }
        guard let rpID = rp[text: "id"]?.textValue, let userID = user[text: "id"]?.bytesValue else {
            throw .missingParameter
        }
        guard userID.count <= 64 else { throw .invalidLength }
        let algorithm = try Self.chooseAlgorithm(credentialParameters, supported: state.configuration.algorithms)

        let options = try p.map(7)
        let residentKey = try options?.option("rk") ?? false
        var uvRequested = try options?.option("uv") ?? false
        if try options?.option("up") == false { throw .invalidOption }
        if residentKey && !state.configuration.residentKeys { throw .unsupportedOption }
        if pinUvAuthParam != nil { uvRequested = false }
        if uvRequested && !hasBuiltInUVConfigured { throw .invalidOption }
        // makeCredUvNotRqd: a protected token makes non-discoverable credentials without UV, but not discoverable
        // ones. A CTAP 2.0 key with a PIN, and an alwaysUv key, need it for every credential.
        let uvNotRequired = state.configuration.ctap21 && !alwaysUV && !residentKey
        if isProtectedByUV, pinUvAuthParam == nil, !uvRequested, !uvNotRequired { throw .puatRequired }
        if alwaysUV, pinUvAuthParam == nil, !uvRequested { throw .puatRequired }
        try checkListLength(try p.array(5))

        let userVerified = try verifyUser(
            pinUvAuthParam: pinUvAuthParam, uvRequested: uvRequested,
            protocolVersion: protocolVersion, clientDataHash: clientDataHash,
            permission: Permission.makeCredential, rpID: rpID, userTouched: userTouched)

        let rpIDHash = Digest.sha256(Array(rpID.utf8))
        for descriptor in try p.array(5) ?? [] {
            guard let id = descriptor[text: "id"]?.bytesValue else { throw .missingParameter }
            if let credential = findCredential(id: id, rpIDHash: rpIDHash),
                credential.secrets.credProtect < 3 || userVerified
            {
                // Only after a touch, so a page cannot probe which credentials the key holds.
                try collectUserPresence(userTouched: userTouched, withToken: pinUvAuthParam != nil)
                throw .credentialExcluded
            }
        }

        let extensions = try p.map(6).map(honouredExtensions)
        let credProtect = try extensions?.extensionInt("credProtect") ?? 1
        guard (1...3).contains(credProtect) else { throw .invalidOption }
        let hmacSecret = try extensions?.extensionBool("hmac-secret") ?? false
        let credBlob = try extensions?.extensionBytes("credBlob")
        let largeBlobKeyRequested = try extensions?.extensionBool("largeBlobKey") ?? false
        let minPinLengthRequested = try extensions?.extensionBool("minPinLength") ?? false
        if largeBlobKeyRequested && !residentKey { throw .invalidOption }

        try collectUserPresence(userTouched: userTouched, withToken: pinUvAuthParam != nil)

        if residentKey {
            let replaced = state.credentials.contains {
                $0.discoverable && $0.rpID == rpID && Array($0.userID) == userID
            }
            if !replaced, remainingDiscoverableSlots == 0 { throw .keyStoreFull }
        }
        let key: SigningKey
        do { key = try SigningKey.generate(algorithm) } catch { throw .other }
        let storedBlob = credBlob.flatMap { $0.count <= state.configuration.maxCredBlobLength ? $0 : nil }
        let secrets = CredentialSecrets(
            algorithm: algorithm, privateKey: key.pkcs8DER, credProtect: credProtect,
            credRandomWithUV: Digest.randomBytes(32), credRandomWithoutUV: Digest.randomBytes(32),
            credBlob: storedBlob, largeBlobKey: largeBlobKeyRequested ? Digest.randomBytes(32) : nil,
            discoverable: residentKey, hmacSecret: hmacSecret)
        let credentialID = try CredentialID.seal(secrets, rpIDHash: rpIDHash, key: Array(state.wrappingKey))
        try commit { (s: inout TokenState) throws(CTAPStatus) in
            if residentKey {
                s.credentials.removeAll { $0.discoverable && $0.rpID == rpID && Array($0.userID) == userID }
            }
            s.creationCounter += 1
            s.credentials.append(
                StoredCredential(
                    id: Data(credentialID), rpID: rpID, rpName: rp[text: "name"]?.textValue, userID: Data(userID),
                    userName: user[text: "name"]?.textValue, userDisplayName: user[text: "displayName"]?.textValue,
                    algorithm: algorithm.rawValue, signCount: 0, discoverable: residentKey, credProtect: credProtect,
                    created: s.creationCounter))
        }
        if pinUvAuthParam != nil { session.consumeToken() }

        var extensionOutputs: [(CBOR, CBOR)] = []
        if extensions?[text: "credProtect"] != nil { extensionOutputs.append(("credProtect", .int(credProtect))) }
        if hmacSecret { extensionOutputs.append(("hmac-secret", true)) }
        if credBlob != nil { extensionOutputs.append(("credBlob", .bool(storedBlob != nil))) }
        if minPinLengthRequested, minPINLengthRPIDs.contains(rpID) {
            extensionOutputs.append(("minPinLength", .int(minPINLength)))
        }
        var flags: AuthenticatorData.Flags = [.userPresent]
        if userVerified { flags.insert(.userVerified) }
        let authData = AuthenticatorData(
            rpIDHash: rpIDHash, flags: flags, signCount: 0,
            attestedCredential: (state.configuration.aaguid, credentialID, key.coseKey), extensions: extensionOutputs
        ).bytes

        var response: [(CBOR, CBOR)] = [
            (1, "packed"),
            (2, .bytes(authData)),
            (3, try attestationStatement(signedData: authData + clientDataHash, credentialKey: key)),
        ]
        if let largeBlobKey = secrets.largeBlobKey { response.append((5, .bytes(largeBlobKey))) }
        return .map(response)
    }

    /// The first entry of pubKeyCredParams this token is configured for (ES256 or EdDSA).
    static func chooseAlgorithm(_ parameters: [CBOR], supported: [Int]) throws(CTAPStatus) -> SigningAlgorithm {
        for parameter in parameters {
            guard let type = parameter[text: "type"]?.textValue, let alg = parameter[text: "alg"]?.intValue else {
                throw .cborUnexpectedType
            }
            if type == "public-key", supported.contains(alg), let algorithm = SigningAlgorithm(rawValue: alg) {
                return algorithm
            }
        }
        throw .unsupportedAlgorithm
    }

    /// The request's extensions map without the ones this token does not list: a key ignores extensions it
    /// does not know (CTAP 2.1 §9).
    func honouredExtensions(_ extensions: CBOR) -> CBOR {
        let enabled = enabledExtensions
        return .map((extensions.mapValue ?? []).filter { key, _ in key.textValue.map(enabled.contains) ?? false })
    }

    /// maxCredentialCountInList: a longer allow or exclude list is refused.
    func checkListLength(_ list: [CBOR]?) throws(CTAPStatus) {
        if let limit = state.configuration.maxCredentialCountInList, let list, list.count > limit {
            throw .limitExceeded
        }
    }

    /// A "packed" attestation statement: self attestation, or the token's attestation key with its certificate.
    func attestationStatement(signedData: [UInt8], credentialKey: SigningKey) throws(CTAPStatus) -> CBOR {
        do {
            if state.configuration.attestation == .certificate, let der = state.attestationKey,
                let certificate = state.attestationCertificate
            {
                let attestationKey = try signingKeys.key(pkcs8DER: Array(der))
                return .map([
                    ("alg", -7), ("sig", .bytes(try attestationKey.sign(signedData))),
                    ("x5c", [.bytes(Array(certificate))]),
                ])
            }
            return .map([
                ("alg", .int(credentialKey.algorithm.rawValue)), ("sig", .bytes(try credentialKey.sign(signedData))),
            ])
        } catch { throw .other }
    }
}

extension TokenState {
    /// Makes the token-wide attestation key and its self-signed certificate (FIDO "packed" requirements:
    /// version 3, OU "Authenticator Attestation", not a CA, the AAGUID extension).
    mutating func makeAttestationCertificate() throws(SoftTokenError) {
        do {
            let key = try SigningKey.generate(.es256)
            let certificate = try AttestationCertificate.selfSigned(
                key: key, commonName: "webauthn-bridge SoftToken (development/test only)", aaguid: configuration.aaguid)
            attestationKey = Data(key.pkcs8DER)
            attestationCertificate = Data(certificate)
        } catch { throw .crypto(error.description) }
    }
}

/// Extension inputs are keyed by name inside the extensions map.
extension CBOR {
    func extensionBool(_ name: String) throws(CTAPStatus) -> Bool? {
        guard let value = self[text: name] else { return nil }
        guard let bool = value.boolValue else { throw .cborUnexpectedType }
        return bool
    }
    func extensionInt(_ name: String) throws(CTAPStatus) -> Int? {
        guard let value = self[text: name] else { return nil }
        guard let int = value.intValue else { throw .cborUnexpectedType }
        return int
    }
    func extensionBytes(_ name: String) throws(CTAPStatus) -> [UInt8]? {
        guard let value = self[text: name] else { return nil }
        guard let bytes = value.bytesValue else { throw .cborUnexpectedType }
        return bytes
    }
}
