import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A credential found for a request: its sealed secrets and its record (for the counter and user).
struct FoundCredential {
    var id: [UInt8]
    var secrets: CredentialSecrets
    var record: StoredCredential?
}

/// The parts of a getAssertion request that getNextAssertion repeats for the remaining credentials.
struct AssertionRequest {
    var rpID: String
    var rpIDHash: [UInt8]
    var clientDataHash: [UInt8]
    var flags: AuthenticatorData.Flags
    var extensions: CBOR?
    var discoverableLookup: Bool
    var numberOfCredentials: Int
}

extension SoftToken {
    /// Opens a credential ID made by this token for this RP. A discoverable credential whose record is gone
    /// (overwritten for the same user) no longer exists.
    func findCredential(id: [UInt8], rpIDHash: [UInt8]) -> FoundCredential? {
        guard let secrets = CredentialID.open(id, rpIDHash: rpIDHash, key: Array(state.wrappingKey)) else { return nil }
        let record = state.credentialIndex(id: id).map { state.credentials[$0] }
        if secrets.discoverable && record == nil { return nil }
        return FoundCredential(id: id, secrets: secrets, record: record)
    }

    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2).
    func getAssertion(_ p: CBOR, userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        let pinUvAuthParam = try p.bytes(6)
        let protocolVersion = try p.int(7)
        if let param = pinUvAuthParam, param.isEmpty {
            try collectUserPresence(userTouched: userTouched)
            throw state.pinHash == nil ? .pinNotSet : .pinInvalid
        }
        guard let rpID = try p.text(1), let clientDataHash = try p.bytes(2) else { throw .missingParameter }
        let options = try p.map(5)
        if try options?.option("rk") != nil { throw .unsupportedOption }
        let userPresence = try options?.option("up") ?? true
        var uvRequested = try options?.option("uv") ?? false
        if pinUvAuthParam != nil { uvRequested = false }
        if uvRequested && !hasBuiltInUVConfigured { throw .invalidOption }
        // alwaysUv binds requests that need the user, not silent ones (up=false: the platform's pre-flight).
        if alwaysUV, pinUvAuthParam == nil, !uvRequested, userPresence { throw .puatRequired }

        let userVerified = try verifyUser(
            pinUvAuthParam: pinUvAuthParam, uvRequested: uvRequested,
            protocolVersion: protocolVersion, clientDataHash: clientDataHash,
            permission: Permission.getAssertion, rpID: rpID, userTouched: userTouched)

        let rpIDHash = Digest.sha256(Array(rpID.utf8))
        let allowList = try p.array(3) ?? []
        try checkListLength(allowList)
        var found: [FoundCredential] = []
        if allowList.isEmpty {
            // Discoverable credentials, newest first; credProtect 2 and 3 hide them without UV.
            found = state.credentials.filter { $0.discoverable && $0.rpID == rpID }
                .sorted { $0.created > $1.created }
                .compactMap { findCredential(id: Array($0.id), rpIDHash: rpIDHash) }
                .filter { $0.secrets.credProtect == 1 || userVerified }
        } else {
            for descriptor in allowList {
                guard let id = descriptor[text: "id"]?.bytesValue else { throw .missingParameter }
                if let credential = findCredential(id: id, rpIDHash: rpIDHash),
                    credential.secrets.credProtect < 3 || userVerified
                {
                    found = [credential]
                    break
                }
            }
        }
        // CTAP 2.0 asks for the touch before it says it holds none, CTAP 2.1 says so at once (`NoCredentialsOrder`).
        if userPresence, !found.isEmpty || state.configuration.effectiveNoCredentialsOrder == .afterTouch {
            try collectUserPresence(userTouched: userTouched, withToken: pinUvAuthParam != nil)
        }
        guard let first = found.first else { throw .noCredentials }

        var flags: AuthenticatorData.Flags = []
        if userPresence { flags.insert(.userPresent) }
        if userVerified { flags.insert(.userVerified) }
        if pinUvAuthParam != nil, userPresence { session.consumeToken() }
        let request = AssertionRequest(
            rpID: rpID, rpIDHash: rpIDHash, clientDataHash: clientDataHash, flags: flags,
            extensions: try p.map(4).map(honouredExtensions),
            discoverableLookup: allowList.isEmpty, numberOfCredentials: found.count)
        let response = try assertion(for: first, request: request, first: true)
        if found.count > 1 {
            session.nextAssertions = AssertionBatch(
                remaining: found.dropFirst().map(\.id), request: request, userVerified: userVerified)
        }
        return response
    }

    /// authenticatorGetNextAssertion (§6.3).
    func getNextAssertion() throws(CTAPStatus) -> CBOR? {
        guard var batch = session.nextAssertions, !batch.remaining.isEmpty else { throw .notAllowed }
        let id = batch.remaining.removeFirst()
        session.nextAssertions = batch.remaining.isEmpty ? nil : batch
        guard let credential = findCredential(id: id, rpIDHash: batch.request.rpIDHash) else { throw .noCredentials }
        return try assertion(for: credential, request: batch.request, first: false)
    }

    /// Signs one assertion, bumping and saving the credential's counter first.
    func assertion(for credential: FoundCredential, request: AssertionRequest, first: Bool) throws(CTAPStatus) -> CBOR {
        let userVerified = request.flags.contains(.userVerified)
        var extensionOutputs: [(CBOR, CBOR)] = []
        var largeBlobKey: [UInt8]?
        if let extensions = request.extensions {
            // Ignored for credentials made without hmac-secret, as CTAP 2.1 §12.5 says.
            if let hmac = extensions[text: "hmac-secret"], credential.secrets.hmacSecret {
                extensionOutputs.append(
                    (
                        "hmac-secret",
                        .bytes(try hmacSecret(hmac, credential: credential.secrets, userVerified: userVerified))
                    ))
            }
            if try extensions.extensionBool("credBlob") == true {
                extensionOutputs.append(("credBlob", .bytes(credential.secrets.credBlob ?? [])))
            }
            if try extensions.extensionBool("largeBlobKey") == true, let key = credential.secrets.largeBlobKey {
                largeBlobKey = key
            }
        }

        let signCount = try nextSignCount(credential, rpID: request.rpID)
        let authData = AuthenticatorData(
            rpIDHash: request.rpIDHash, flags: request.flags, signCount: signCount, attestedCredential: nil,
            extensions: extensionOutputs
        ).bytes
        let signature: [UInt8]
        do {
            let key = try signingKeys.key(pkcs8DER: credential.secrets.privateKey)
            signature = try key.sign(authData + request.clientDataHash)
        } catch { throw .other }

        var response: [(CBOR, CBOR)] = [
            (1, .map([("id", .bytes(credential.id)), ("type", "public-key")])),
            (2, .bytes(authData)),
            (3, .bytes(signature)),
        ]
        if credential.secrets.discoverable, let record = credential.record {
            var user: [(CBOR, CBOR)] = [("id", .bytes(Array(record.userID)))]
            // User-identifiable information only after user verification (CTAP 2.1 §6.2.2 step 12).
            if userVerified && request.discoverableLookup {
                if let name = record.userName { user.append(("name", .text(name))) }
                if let displayName = record.userDisplayName { user.append(("displayName", .text(displayName))) }
            }
            response.append((4, .map(user)))
        }
        if first && request.numberOfCredentials > 1 { response.append((5, .int(request.numberOfCredentials))) }
        if let largeBlobKey { response.append((7, .bytes(largeBlobKey))) }
        return .map(response)
    }

    /// Bumps and saves a credential's signature counter; returns the new value.
    func nextSignCount(_ credential: FoundCredential, rpID: String) throws(CTAPStatus) -> UInt32 {
        if let index = state.credentialIndex(id: credential.id) { return try commitSignCount(at: index) }
        // A non-discoverable credential without a record (made before records existed): start counting now.
        try commit { (s: inout TokenState) throws(CTAPStatus) in
            s.creationCounter += 1
            s.credentials.append(
                StoredCredential(
                    id: Data(credential.id), rpID: rpID, rpName: nil, userID: Data(), userName: nil,
                    userDisplayName: nil,
                    algorithm: credential.secrets.algorithm.rawValue, signCount: 1, discoverable: false,
                    credProtect: credential.secrets.credProtect, created: s.creationCounter))
        }
        return 1
    }
}
