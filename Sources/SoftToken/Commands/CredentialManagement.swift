import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// authenticatorCredentialManagement subcommands (CTAP 2.1 §6.8).
enum CredentialManagementSubcommand: Int {
    case getCredsMetadata = 0x01
    case enumerateRPsBegin = 0x02
    case enumerateRPsGetNextRP = 0x03
    case enumerateCredentialsBegin = 0x04
    case enumerateCredentialsGetNextCredential = 0x05
    case deleteCredential = 0x06
    case updateUserInformation = 0x07
}

/// What an enumeration has left for its GetNext subcommand; any other command ends it (CTAP 2.1 §6.8.3, §6.8.4).
enum CredentialEnumeration {
    case relyingParties([String])
    case credentials([Data])
}

extension SoftToken {
    /// Whether this token answers authenticatorCredentialManagement (a CTAP 2.1 key whose profile has it).
    var hasCredentialManagement: Bool { state.configuration.ctap21 && state.configuration.credentialManagement }

    /// Whether it answers the CTAP 2.1-PRE command 0x41: every key with credential management, and a preview-only
    /// key (YubiKey 5 firmware 5.2–5.6-like: FIDO_2_1_PRE, credentialMgmtPreview).
    var hasCredentialManagementPreview: Bool {
        hasCredentialManagement || state.configuration.credentialManagementPreview
    }

    /// authenticatorCredentialManagement (CTAP 2.1 §6.8): lists, deletes and renames discoverable credentials.
    /// Every subcommand but the two GetNext ones needs a pinUvAuthToken with the `cm` permission, and a token
    /// bound to an RP ID only reaches that RP's credentials.
    /// `preview`: a preview-only key, whose command has no updateUserInformation.
    func credentialManagement(_ p: CBOR, preview: Bool) throws(CTAPStatus) -> CBOR? {
        guard let raw = try p.int(1) else { throw .missingParameter }
        guard let subcommand = CredentialManagementSubcommand(rawValue: raw) else { throw .invalidSubcommand }
        if preview && subcommand == .updateUserInformation { throw .invalidSubcommand }
        let subParameters = try p.map(2)
        switch subcommand {
        case .enumerateRPsGetNextRP: return try nextRelyingParty()
        case .enumerateCredentialsGetNextCredential: return try nextCredential()
        default: session.credentialEnumeration = nil
        }
        // The signed message is the subcommand byte followed by the parameters exactly as the platform sent them.
        var message: [UInt8] = [UInt8(raw)]
        if let subParameters { message += subParameters.encode() }
        guard let param = try p.bytes(4) else { throw .puatRequired }
        try verifyPinUvAuthParam(
            param, protocolVersion: try p.int(3), message: message, permission: Permission.credentialManagement,
            rpID: nil)
        switch subcommand {
        case .getCredsMetadata:
            guard session.permissionsRPID == nil else { throw .pinAuthInvalid }
            return .map([(1, .int(discoverableCredentials.count)), (2, .int(remainingDiscoverableSlots))])
        case .enumerateRPsBegin:
            guard session.permissionsRPID == nil else { throw .pinAuthInvalid }
            var rpIDs: [String] = []
            for credential in discoverableCredentials where !rpIDs.contains(credential.rpID) {
                rpIDs.append(credential.rpID)
            }
            guard let first = rpIDs.first else { throw .noCredentials }
            session.credentialEnumeration = .relyingParties(Array(rpIDs.dropFirst()))
            return relyingPartyEntry(first, extra: [(5, .int(rpIDs.count))])
        case .enumerateCredentialsBegin:
            guard let rpIDHash = try subParameters?.bytes(1) else { throw .missingParameter }
            let credentials = discoverableCredentials.filter { Digest.sha256(Array($0.rpID.utf8)) == rpIDHash }
            guard let first = credentials.first else { throw .noCredentials }
            try checkBoundRPID(first.rpID)
            session.credentialEnumeration = .credentials(credentials.dropFirst().map(\.id))
            return try credentialEntry(first, extra: [(9, .int(credentials.count))])
        case .deleteCredential:
            let index = try namedCredential(subParameters)
            try checkBoundRPID(state.credentials[index].rpID)
            try commit { $0.credentials.remove(at: index) }
            return nil
        case .updateUserInformation:
            let index = try namedCredential(subParameters)
            guard let user = try subParameters?.map(3), let userID = user[text: "id"]?.bytesValue else {
                throw .missingParameter
            }
            try checkBoundRPID(state.credentials[index].rpID)
            guard userID == Array(state.credentials[index].userID) else { throw .invalidParameter }
            // Fields the platform leaves out are removed, as §6.8.6 says.
            try commit {
                $0.credentials[index].userName = user[text: "name"]?.textValue
                $0.credentials[index].userDisplayName = user[text: "displayName"]?.textValue
            }
            return nil
        case .enumerateRPsGetNextRP, .enumerateCredentialsGetNextCredential: return nil
        }
    }

    /// getInfo's remainingDiscoverableCredentials and getCredsMetadata's maxPossibleRemainingResidentCredentialsCount.
    var remainingDiscoverableSlots: Int {
        max(0, state.configuration.discoverableCredentialSlots - state.credentials.lazy.filter(\.discoverable).count)
    }

    /// Discoverable credentials, oldest first (the order enumeration reports them in).
    var discoverableCredentials: [StoredCredential] {
        state.credentials.filter(\.discoverable).sorted { $0.created < $1.created }
    }

    private func nextRelyingParty() throws(CTAPStatus) -> CBOR {
        guard case .relyingParties(var remaining) = session.credentialEnumeration, !remaining.isEmpty else {
            session.credentialEnumeration = nil
            throw .notAllowed
        }
        let rpID = remaining.removeFirst()
        session.credentialEnumeration = .relyingParties(remaining)
        return relyingPartyEntry(rpID, extra: [])
    }

    private func nextCredential() throws(CTAPStatus) -> CBOR {
        guard case .credentials(var remaining) = session.credentialEnumeration, !remaining.isEmpty else {
            session.credentialEnumeration = nil
            throw .notAllowed
        }
        let id = remaining.removeFirst()
        session.credentialEnumeration = .credentials(remaining)
        // Deleted since the Begin (another process sharing the state file): the enumeration is over.
        guard let index = state.credentialIndex(id: Array(id)) else { throw .noCredentials }
        return try credentialEntry(state.credentials[index], extra: [])
    }

    private func relyingPartyEntry(_ rpID: String, extra: [(CBOR, CBOR)]) -> CBOR {
        var rp: [(CBOR, CBOR)] = [("id", .text(rpID))]
        if let name = discoverableCredentials.first(where: { $0.rpID == rpID })?.rpName {
            rp.append(("name", .text(name)))
        }
        return .map([(3, .map(rp)), (4, .bytes(Digest.sha256(Array(rpID.utf8))))] + extra)
    }

    private func credentialEntry(_ credential: StoredCredential, extra: [(CBOR, CBOR)]) throws(CTAPStatus) -> CBOR {
        let rpIDHash = Digest.sha256(Array(credential.rpID.utf8))
        guard let secrets = CredentialID.open(Array(credential.id), rpIDHash: rpIDHash, key: Array(state.wrappingKey))
        else { throw .other }
        let key: SigningKey
        do { key = try signingKeys.key(pkcs8DER: secrets.privateKey) } catch { throw .other }
        var user: [(CBOR, CBOR)] = [("id", .bytes(Array(credential.userID)))]
        if let name = credential.userName { user.append(("name", .text(name))) }
        if let displayName = credential.userDisplayName { user.append(("displayName", .text(displayName))) }
        var entry: [(CBOR, CBOR)] = [
            (6, .map(user)),
            (7, .map([("id", .bytes(Array(credential.id))), ("type", "public-key")])),
            (8, AuthenticatorData.cose(key.coseKey)),
        ]
        entry += extra
        entry.append((10, .int(credential.credProtect)))
        if let largeBlobKey = secrets.largeBlobKey { entry.append((11, .bytes(largeBlobKey))) }
        return .map(entry)
    }

    /// The stored discoverable credential a deleteCredential or updateUserInformation names.
    private func namedCredential(_ subParameters: CBOR?) throws(CTAPStatus) -> Int {
        guard let descriptor = try subParameters?.map(2) else { throw .missingParameter }
        guard let id = descriptor[text: "id"]?.bytesValue else { throw .missingParameter }
        guard let index = state.credentialIndex(id: id), state.credentials[index].discoverable else {
            throw .noCredentials
        }
        return index
    }

    /// A pinUvAuthToken bound to an RP ID reaches only that RP's credentials.
    private func checkBoundRPID(_ rpID: String) throws(CTAPStatus) {
        if let bound = session.permissionsRPID, bound != rpID { throw .pinAuthInvalid }
    }
}
