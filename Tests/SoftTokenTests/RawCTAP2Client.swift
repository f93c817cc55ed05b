import CBOR
import CTAP
import Cryptography
import Testing

@testable import SoftToken

/// A CTAP2 client that frames CBOR commands itself over `RawChannel`, so a test can send requests libfido2's
/// public API never builds (a token used outside its permissions, RP or protocol; a corrupted pinUvAuthParam).
final class RawCTAP2Client {
    let raw: RawChannel
    let channel: UInt32

    init(_ path: String) throws {
        raw = try RawChannel(path)
        channel = try raw.initialize()
    }

    /// Sends one CTAPHID_CBOR message; returns the status byte and the decoded response map (nil when empty).
    func send(_ command: CTAPCommand, _ parameters: CBOR) throws -> (status: UInt8, reply: CBOR?) {
        writeMessage([command.rawValue] + parameters.encode())
        let response = try readMessage()
        let status = try #require(response.first, "empty CTAPHID_CBOR response")
        let body = Array(response.dropFirst())
        return (status, body.isEmpty ? nil : try CBOR.decode(body))
    }

    /// Splits a message into an init report (57 payload bytes) and continuation reports (59 each).
    private func writeMessage(_ message: [UInt8]) {
        let cid = RawChannel.cid(channel)
        let count = message.count
        raw.write(cid + [0x90, UInt8(count >> 8), UInt8(count & 0xFF)] + message.prefix(57))
        var sent = min(57, count)
        var sequence: UInt8 = 0
        while sent < count {
            raw.write(cid + [sequence] + message[sent..<min(sent + 59, count)])
            sent += 59
            sequence += 1
        }
    }

    /// Reassembles the CBOR response, skipping KEEPALIVE reports (a real client must tolerate them too).
    private func readMessage() throws -> [UInt8] {
        var head = try #require(raw.read(), "no response")
        while head[4] == 0xBB { head = try #require(raw.read(), "no response after keepalive") }
        #expect(Array(head[0..<4]) == RawChannel.cid(channel))
        try #require(head[4] == 0x90, "expected a CTAPHID_CBOR response, got command \(head[4])")
        let length = Int(head[5]) << 8 | Int(head[6])
        var message = Array(head[7..<64])
        while message.count < length {
            let next = try #require(raw.read(), "missing continuation report")
            message += next[5..<64]
        }
        return Array(message.prefix(length))
    }
}

/// The platform side of PIN/UV auth protocol 2 (CTAP 2.1 §6.5.7), written from the spec with the Cryptography
/// module only, so these tests do not trust SoftToken's own `PINProtocol` to check itself.
struct PlatformPINProtocol2 {
    let hmacKey: [UInt8]
    let aesKey: [UInt8]
    /// Our COSE key (-25, ECDH-ES+HKDF-256), sent with every subcommand that uses the shared secret.
    let platformKey: CBOR

    /// getKeyAgreement (clientPIN 0x02), then ECDH and HKDF-SHA-256 with a 32-zero-byte salt.
    init(_ client: RawCTAP2Client) throws {
        let (status, reply) = try client.send(.clientPIN, .map([(1, 2), (2, 2)]))
        try #require(status == CTAPStatus.ok.rawValue, "getKeyAgreement status \(status)")
        let cose = try #require(reply?[int: 1])
        let x = try #require(cose[int: -2]?.bytesValue)
        let y = try #require(cose[int: -3]?.bytesValue)
        let ours = try KeyAgreementKey()
        let z = try ours.sharedSecret(with: try PublicKey.p256(x: x, y: y))
        let salt = [UInt8](repeating: 0, count: 32)
        hmacKey = Digest.hkdfSHA256(ikm: z, salt: salt, info: Array("CTAP2 HMAC key".utf8))
        aesKey = Digest.hkdfSHA256(ikm: z, salt: salt, info: Array("CTAP2 AES key".utf8))
        let point = ours.publicPoint
        platformKey = .map([
            (1, 2), (3, -25), (-1, 1), (-2, .bytes(Array(point[1..<33]))), (-3, .bytes(Array(point[33..<65]))),
        ])
    }

    /// AES-256-CBC with a fresh random IV, sent in front of the ciphertext.
    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
        let iv = Digest.randomBytes(16)
        return iv + (try SymmetricCipher.aes256CBC(encrypt: true, key: aesKey, iv: iv, data: plaintext))
    }

    func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] {
        try SymmetricCipher.aes256CBC(
            encrypt: false, key: aesKey, iv: Array(ciphertext.prefix(16)), data: Array(ciphertext.dropFirst(16)))
    }

    /// getPinUvAuthTokenUsingPinWithPermissions (clientPIN 0x09); returns the status and, on success, the token.
    func pinUvAuthToken(_ client: RawCTAP2Client, pin: String, permissions: UInt8, rpID: String?) throws -> (
        status: UInt8, token: [UInt8]?
    ) {
        let pinHashEnc = try encrypt(Array(Digest.sha256(Array(pin.utf8)).prefix(16)))
        var request: [(CBOR, CBOR)] = [
            (1, 2), (2, 9), (3, platformKey), (6, .bytes(pinHashEnc)), (9, .int(Int(permissions))),
        ]
        if let rpID { request.append((10, .text(rpID))) }
        let (status, reply) = try client.send(.clientPIN, .map(request))
        guard status == CTAPStatus.ok.rawValue else { return (status, nil) }
        return (status, try decrypt(try #require(reply?[int: 2]?.bytesValue)))
    }

    /// Protocol 2's authenticate(): the full 32-byte HMAC-SHA-256 keyed with the pinUvAuthToken itself.
    static func authenticate(token: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Digest.hmacSHA256(key: token, data: message)
    }
}

/// Raw authenticatorMakeCredential / authenticatorGetAssertion requests with an optional pinUvAuthParam.
enum RawRequest {
    static func makeCredential(
        rpID: String, clientDataHash: [UInt8], param: [UInt8]?, protocolVersion: Int = 2, rk: Bool = false
    ) -> CBOR {
        var map: [(CBOR, CBOR)] = [
            (1, .bytes(clientDataHash)),
            (2, .map([("id", .text(rpID)), ("name", "Example")])),
            (3, .map([("id", .bytes(Array("user-1".utf8))), ("name", "alice")])),
            (4, [.map([("alg", -7), ("type", "public-key")])]),
        ]
        if rk { map.append((7, .map([("rk", true)]))) }
        if let param { map += [(8, .bytes(param)), (9, .int(protocolVersion))] }
        return .map(map)
    }

    static func getAssertion(rpID: String, clientDataHash: [UInt8], param: [UInt8]?, protocolVersion: Int = 2) -> CBOR {
        var map: [(CBOR, CBOR)] = [(1, .text(rpID)), (2, .bytes(clientDataHash))]
        if let param { map += [(6, .bytes(param)), (7, .int(protocolVersion))] }
        return .map(map)
    }
}
