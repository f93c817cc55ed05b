import CTAP
import Cryptography
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// U2F (CTAP1) raw messages, carried in CTAPHID_MSG as ISO 7816-4 APDUs (FIDO U2F Raw Message Formats v1.2).
///
/// A U2F key cannot keep a request waiting for the user: it answers "conditions not satisfied" (0x6985) until it
/// has been touched, and the platform repeats the request (libfido2 every 100 ms). The simulated touch follows the
/// configured presence: `.automatic` is touched at once, `.delay` after the delay from the first request that asked,
/// `.onSignal` by a request that finds the touch file, `.deny` never (a U2F key has no way to say no).
enum U2F {
    enum Instruction: UInt8 {
        case register = 0x01
        case authenticate = 0x02
        case version = 0x03
    }

    /// U2F_AUTHENTICATE control byte (P1).
    enum Control: UInt8 {
        case enforceUserPresenceAndSign = 0x03
        case checkOnly = 0x07
        case dontEnforceUserPresenceAndSign = 0x08
    }

    /// Status words (ISO 7816-4 as U2F uses them).
    enum Status: UInt16 {
        case noError = 0x9000
        case conditionsNotSatisfied = 0x6985
        case wrongData = 0x6A80
        case wrongLength = 0x6700
        case claNotSupported = 0x6E00
        case insNotSupported = 0x6D00

        var bytes: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)] }
    }

    /// One command APDU: header and data, in short or extended length encoding (libfido2 sends extended).
    struct Command: Equatable {
        var cla: UInt8
        var ins: UInt8
        var p1: UInt8
        var p2: UInt8
        var data: [UInt8]

        /// nil: the bytes are not a well-formed APDU (answered with 0x6700).
        init?(_ bytes: [UInt8]) {
            guard bytes.count >= 4 else { return nil }
            (cla, ins, p1, p2) = (bytes[0], bytes[1], bytes[2], bytes[3])
            let body = Array(bytes.dropFirst(4))
            switch body.count {
            case 0, 1:
                data = []  // no data, at most a short Le
            case 3 where body[0] == 0:
                data = []  // no data, an extended Le
            default:
                if body[0] == 0 {
                    guard body.count >= 3 else { return nil }
                    let length = Int(body[1]) << 8 | Int(body[2])
                    // Data, then an optional extended Le of two bytes.
                    guard body.count == 3 + length || body.count == 5 + length else { return nil }
                    data = Array(body[3..<(3 + length)])
                } else {
                    let length = Int(body[0])
                    guard body.count == 1 + length || body.count == 2 + length else { return nil }
                    data = Array(body[1..<(1 + length)])
                }
            }
        }
    }

    static let version = Array("U2F_V2".utf8)
}

extension SoftToken {
    /// Runs one U2F APDU (with `monitor` held) and returns the response APDU: data followed by a status word.
    func executeU2F(_ message: [UInt8]) -> [UInt8] {
        guard let command = U2F.Command(message) else { return U2F.Status.wrongLength.bytes }
        guard command.cla == 0 else { return U2F.Status.claNotSupported.bytes }
        do throws(U2FFailure) {
            switch U2F.Instruction(rawValue: command.ins) {
            case .register: return try u2fRegister(command) + U2F.Status.noError.bytes
            case .authenticate: return try u2fAuthenticate(command) + U2F.Status.noError.bytes
            case .version:
                guard command.data.isEmpty else { return U2F.Status.wrongLength.bytes }
                return U2F.version + U2F.Status.noError.bytes
            case nil: return U2F.Status.insNotSupported.bytes
            }
        } catch {
            return error.status.bytes
        }
    }

    /// U2F_REGISTER: challenge parameter (32) ‖ application parameter (32). The key handle is a credential ID
    /// sealed for the application parameter, so CTAP2 getAssertion with the same rp id (an AppID) finds it too.
    private func u2fRegister(_ command: U2F.Command) throws(U2FFailure) -> [UInt8] {
        guard command.data.count == 64 else { throw U2FFailure(.wrongLength) }
        let challenge = Array(command.data[0..<32])
        let application = Array(command.data[32..<64])
        try consumeU2FTouch()
        do throws(CTAPStatus) {
            guard let attestationKey = state.attestationKey, let certificate = state.attestationCertificate else {
                throw CTAPStatus.other
            }
            let key: SigningKey
            do { key = try SigningKey.generate(.es256) } catch { throw CTAPStatus.other }
            let secrets = CredentialSecrets(
                algorithm: .es256, privateKey: key.pkcs8DER, credProtect: 1, credRandomWithUV: [],
                credRandomWithoutUV: [], credBlob: nil, largeBlobKey: nil, discoverable: false, hmacSecret: false)
            let keyHandle = try CredentialID.seal(secrets, rpIDHash: application, key: Array(state.wrappingKey))
            guard keyHandle.count <= 255 else { throw CTAPStatus.other }
            let publicKey = key.publicKeyBytes
            try commit { (s: inout TokenState) throws(CTAPStatus) in
                s.creationCounter += 1
                s.credentials.append(
                    StoredCredential(
                        id: Data(keyHandle), rpID: Self.u2fApplicationLabel(application), rpName: nil, userID: Data(),
                        userName: nil, userDisplayName: nil, algorithm: SigningAlgorithm.es256.rawValue, signCount: 0,
                        discoverable: false, credProtect: 1, created: s.creationCounter))
            }
            let signed = [0x00] + application + challenge + keyHandle + publicKey
            let signature: [UInt8]
            do { signature = try signingKeys.key(pkcs8DER: Array(attestationKey)).sign(signed) } catch {
                throw CTAPStatus.other
            }
            return [0x05] + publicKey + [UInt8(keyHandle.count)] + keyHandle + Array(certificate) + signature
        } catch {
            // A U2F key has no richer error to give: the platform sees a failed command.
            throw U2FFailure(.wrongData)
        }
    }

    /// U2F_AUTHENTICATE: challenge (32) ‖ application (32) ‖ L ‖ key handle (L).
    private func u2fAuthenticate(_ command: U2F.Command) throws(U2FFailure) -> [UInt8] {
        let data = command.data
        guard data.count >= 65, data.count == 65 + Int(data[64]) else { throw U2FFailure(.wrongLength) }
        let challenge = Array(data[0..<32])
        let application = Array(data[32..<64])
        let keyHandle = Array(data[65...])
        // credProtect level 3 (userVerificationRequired) cannot be met without UV, which U2F does not have.
        guard let credential = findCredential(id: keyHandle, rpIDHash: application), credential.secrets.credProtect < 3,
            credential.secrets.algorithm == .es256
        else { throw U2FFailure(.wrongData) }
        let userPresent: Bool
        switch U2F.Control(rawValue: command.p1) {
        case .checkOnly: throw U2FFailure(.conditionsNotSatisfied)  // "the key handle is mine"
        case .enforceUserPresenceAndSign:
            try consumeU2FTouch()
            userPresent = true
        case .dontEnforceUserPresenceAndSign: userPresent = false
        case nil: throw U2FFailure(.wrongData)
        }
        do throws(CTAPStatus) {
            let counter = try nextSignCount(credential, rpID: Self.u2fApplicationLabel(application))
            let presence: [UInt8] = [userPresent ? 0x01 : 0x00]
            let counterBytes = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
            let signature: [UInt8]
            do {
                signature = try signingKeys.key(pkcs8DER: credential.secrets.privateKey)
                    .sign(application + presence + counterBytes + challenge)
            } catch { throw CTAPStatus.other }
            return presence + counterBytes + signature
        } catch {
            throw U2FFailure(.wrongData)
        }
    }

    /// The simulated touch for U2F: consumed by the request it lets through, so each registration or signature
    /// needs its own (as on a real key, where a touch is good for one operation).
    private func consumeU2FTouch() throws(U2FFailure) {
        switch state.configuration.presence {
        case .automatic: return
        case .deny: throw U2FFailure(.conditionsNotSatisfied)
        case .onSignal:
            guard unlink(Self.touchFile(for: path)) == 0 else { throw U2FFailure(.conditionsNotSatisfied) }
        case .delay(let ms):
            // A touch that came and went unused long ago (the platform gave up) does not count for a new request.
            if let touchAt = session.u2fTouchAt, ContinuousClock.now - touchAt.instant > .seconds(3) {
                session.u2fTouchAt = nil
            }
            guard let touchAt = session.u2fTouchAt else {
                if ms > 0 {
                    session.u2fTouchAt = .after(.milliseconds(ms))
                    throw U2FFailure(.conditionsNotSatisfied)
                }
                return
            }
            guard touchAt.isPast else { throw U2FFailure(.conditionsNotSatisfied) }
            session.u2fTouchAt = nil
        }
    }

    /// What a U2F-made credential's record shows as its relying party: U2F gives the key only SHA-256(AppID).
    static func u2fApplicationLabel(_ application: [UInt8]) -> String {
        let hex = application.prefix(8).map { byte in String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16) }
        return "U2F application " + hex.joined() + "…"
    }
}

/// A U2F command's failure, answered with its status word.
struct U2FFailure: Error {
    let status: U2F.Status
    init(_ status: U2F.Status) { self.status = status }
}
