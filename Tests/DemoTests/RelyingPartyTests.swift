import CBOR
import Cryptography
import Testing
import WebAuthn

@testable import Demo

/// The demo relying party end to end over its routes, with responses made here by a real key as an
/// authenticator would: register, sign in, and the refusals a careful RP owes (challenge used once, Host, Origin).
@Suite struct RelyingPartyTests {
    static let port: UInt16 = 8123
    let relyingParty = DemoRelyingParty(port: port)
    let routes: DemoRoutes
    let key: SigningKey
    let credentialID: [UInt8] = Array(repeating: 0xA7, count: 16)

    init() throws {
        routes = DemoRoutes(relyingParty: relyingParty, port: Self.port, log: { _ in })
        key = try SigningKey.generate(.es256)
    }

    func post(
        _ path: String, _ body: JSONValue, origin: String = "http://localhost:8123", host: String = "localhost:8123"
    ) -> (Int, JSONValue?) {
        let request = HTTPRequest(
            method: "POST", path: path,
            headers: [
                (name: "host", value: host), (name: "origin", value: origin),
                (name: "content-type", value: "application/json"),
            ], body: body.serialized())
        let response = routes.respond(to: request)
        return (response.status, try? JSONValue.parse(response.body))
    }

    func clientData(_ type: String, _ options: JSONValue?) throws -> [UInt8] {
        let challenge = try #require(options?["challenge"]?.stringValue)
        return Array(
            #"{"type":"\#(type)","challenge":"\#(challenge)","origin":"http://localhost:8123","crossOrigin":false}"#
                .utf8)
    }

    func authData(flags: UInt8, counter: UInt32, attested: [UInt8] = []) -> [UInt8] {
        Digest.sha256(Array("localhost".utf8)) + [flags] + withUnsafeBytes(of: counter.bigEndian, Array.init) + attested
    }

    func register() throws -> JSONValue {
        let (_, options) = post("/api/register/options", ["username": "alice"])
        let client = try clientData("webauthn.create", options)
        let cose = CBOR.map(
            key.coseKey.map { label, value in
                switch value {
                case .int(let number): (CBOR.int(label), CBOR.int(number))
                case .bytes(let bytes): (CBOR.int(label), CBOR.bytes(bytes))
                }
            })
        let data = authData(
            flags: 0x41, counter: 0,
            attested: [UInt8](repeating: 0, count: 16) + [0, 16] + credentialID + cose.encode())
        let statement = CBOR.map([
            (.text("alg"), .int(-7)), (.text("sig"), .bytes(try key.sign(data + Digest.sha256(client)))),
        ])
        let object = AttestationObject.encode(format: "packed", statement: statement, authenticatorData: data)
        return credential(client, [("attestationObject", .string(Base64URL.encode(object)))])
    }

    func assertion(counter: UInt32) throws -> JSONValue {
        let (_, options) = post("/api/login/options", [:])
        let client = try clientData("webauthn.get", options)
        let data = authData(flags: 0x01, counter: counter)
        let signature = try key.sign(data + Digest.sha256(client))
        return credential(
            client,
            [
                ("authenticatorData", .string(Base64URL.encode(data))),
                ("signature", .string(Base64URL.encode(signature))),
            ])
    }

    func credential(_ client: [UInt8], _ members: [(String, JSONValue)]) -> JSONValue {
        [
            "type": "public-key", "rawId": .string(Base64URL.encode(credentialID)),
            "response": .object([("clientDataJSON", .string(Base64URL.encode(client)))] + members),
        ]
    }

    @Test func registersSignsInAndKeepsWhatItVerified() throws {
        let registration = try register()
        let (status, registered) = post("/api/register/verify", registration)
        #expect(status == 200)
        #expect(registered?["verified"] == true)
        #expect(registered?["attestationFormat"] == "packed")
        #expect(registered?["flags"]?["UP"] == true)

        let (signInStatus, signedIn) = post("/api/login/verify", try assertion(counter: 1))
        #expect(signInStatus == 200)
        #expect(signedIn?["signatureValid"] == true)
        #expect(signedIn?["counter"] == 1)
        #expect(relyingParty.lastVerified["authentication"]?["counter"] == 1)
    }

    @Test func aChallengeVerifiesOnce() throws {
        let registration = try register()
        #expect(post("/api/register/verify", registration).0 == 200)
        let (status, replayed) = post("/api/register/verify", registration)
        #expect(status == 400)
        #expect(replayed?["error"]?.stringValue == VerificationError.challengeMismatch.description)
    }

    @Test func aCounterThatDoesNotGrowIsRefusedAndNotStored() throws {
        #expect(post("/api/register/verify", try register()).0 == 200)
        #expect(post("/api/login/verify", try assertion(counter: 3)).0 == 200)
        let (status, refused) = post("/api/login/verify", try assertion(counter: 3))
        #expect(status == 400)
        #expect(
            refused?["error"]?.stringValue == VerificationError.counterNotIncreased(stored: 3, received: 3).description)
        #expect(relyingParty.lastVerified["authentication"]?["counter"] == 3)
    }

    @Test func refusesOtherHostsAndOrigins() {
        #expect(post("/api/register/options", ["username": "a"], host: "127.0.0.1:8123").0 == 421)
        #expect(post("/api/register/options", ["username": "a"], host: "evil.example:8123").0 == 421)
        #expect(post("/api/register/options", ["username": "a"], origin: "http://evil.example").0 == 403)
        #expect(post("/api/login/options", [:]).0 == 400)  // nothing registered yet
    }
}
