import CBOR
import Cryptography
import Testing

@testable import WebAuthn

/// Builds authenticator data the way a CTAP2 authenticator lays it out.
struct AuthenticatorDataBuilder {
    var rpID = "example.com"
    var flags: UInt8 = 0x45  // UP | UV | AT
    var signCount: UInt32 = 0x0102_0304
    var aaguid: [UInt8] = Array(1...16)
    var credentialID: [UInt8] = Array(repeating: 0xC1, count: 32)
    var publicKey: CBOR? = nil
    var extensions: CBOR? = nil

    static func cose(_ key: SigningKey) -> CBOR {
        .map(
            key.coseKey.map { label, value in
                switch value {
                case .int(let i): return (.int(label), .int(i))
                case .bytes(let b): return (.int(label), .bytes(b))
                }
            })
    }

    var bytes: [UInt8] {
        var out = Digest.sha256(Array(rpID.utf8)) + [flags]
        out += [
            UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF),
            UInt8(signCount & 0xFF),
        ]
        if let publicKey {
            out += aaguid + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
            out += publicKey.encode()
        }
        if let extensions { out += extensions.encode() }
        return out
    }
}

struct AuthenticatorDataTests {
    @Test(arguments: [SigningAlgorithm.es256, .edDSA])
    func registrationDataParsesAndItsKeyVerifiesSignatures(algorithm: SigningAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let builder = AuthenticatorDataBuilder(publicKey: AuthenticatorDataBuilder.cose(key))
        let data = try AuthenticatorData(bytes: builder.bytes)

        #expect(data.bytes == builder.bytes)
        #expect(data.rpIDHash == Digest.sha256(Array("example.com".utf8)))
        #expect(data.flags.userPresent && data.flags.userVerified && data.flags.attestedCredentialData)
        #expect(!data.flags.backupEligible && !data.flags.backedUp && !data.flags.extensionData)
        #expect(data.signCount == 0x0102_0304)
        #expect(data.extensions == nil)
        let attested = try #require(data.attestedCredential)
        #expect(attested.aaguid == Array(1...16))
        #expect(attested.credentialID == Array(repeating: 0xC1, count: 32))
        #expect(attested.algorithm == algorithm.rawValue)
        #expect(attested.publicKeyCOSEBytes == AuthenticatorDataBuilder.cose(key).encode())
        #expect(attested.publicKeyCOSE == AuthenticatorDataBuilder.cose(key))

        let publicKey = try #require(attested.publicKey)
        let message: [UInt8] = Array("signed by the credential".utf8)
        #expect(publicKey.verify(signature: try key.sign(message), message: message))
        #expect(try PublicKey.fromSPKI(publicKey.spkiDER, algorithm: algorithm.rawValue).spkiDER == publicKey.spkiDER)
    }

    @Test func assertionDataHasOnlyTheFixedPart() throws {
        let builder = AuthenticatorDataBuilder(flags: 0x1D, signCount: 0)  // UP | UV | BE | BS
        let data = try AuthenticatorData(bytes: builder.bytes)
        #expect(data.bytes.count == 37)
        #expect(data.flags.backupEligible && data.flags.backedUp)
        #expect(data.attestedCredential == nil)
        #expect(data.signCount == 0)
    }

    @Test func extensionOutputsAreParsed() throws {
        let builder = AuthenticatorDataBuilder(flags: 0x81, extensions: .map([(.text("credProtect"), .int(2))]))
        let data = try AuthenticatorData(bytes: builder.bytes)
        #expect(data.flags.extensionData)
        #expect(data.extensions?[text: "credProtect"]?.intValue == 2)
    }

    @Test func registrationWithExtensionsParsesBoth() throws {
        let key = try SigningKey.generate(.es256)
        let builder = AuthenticatorDataBuilder(
            flags: 0xC1, publicKey: AuthenticatorDataBuilder.cose(key),
            extensions: .map([(.text("hmac-secret"), .bool(true))]))
        let data = try AuthenticatorData(bytes: builder.bytes)
        #expect(data.attestedCredential?.algorithm == -7)
        #expect(data.extensions?[text: "hmac-secret"]?.boolValue == true)
    }

    @Test func keyThatOpenSSLCannotExpressKeepsItsAlgorithmButHasNoPublicKey() throws {
        let unknownCurve = CBOR.map([
            (.int(1), .int(2)), (.int(3), .int(-36)), (.int(-1), .int(3)),
            (.int(-2), .bytes(Array(repeating: 1, count: 66))), (.int(-3), .bytes(Array(repeating: 2, count: 66))),
        ])
        let data = try AuthenticatorData(bytes: AuthenticatorDataBuilder(publicKey: unknownCurve).bytes)
        #expect(data.attestedCredential?.algorithm == -36)
        #expect(data.attestedCredential?.publicKey == nil)
    }

    @Test func everyTruncationIsAnEncodingErrorNotACrash() throws {
        let key = try SigningKey.generate(.es256)
        let full = AuthenticatorDataBuilder(
            flags: 0xC5, publicKey: AuthenticatorDataBuilder.cose(key),
            extensions: .map([(.text("credProtect"), .int(1))])
        ).bytes
        for length in 0..<full.count {
            #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes: Array(full.prefix(length))) }
        }
        do { _ = try AuthenticatorData(bytes: Array(full.prefix(10))) } catch {
            #expect(
                error
                    == .encoding(
                        "The security key returned malformed authenticator data: 10 bytes, fewer than the 37 required"))
        }
    }

    @Test(arguments: [
        (AuthenticatorDataBuilder(flags: 0x01).bytes + [0x00], "1 unexpected bytes at the end"),
        (
            AuthenticatorDataBuilder(flags: 0x41, publicKey: .text("not a key")).bytes,
            "credential public key is not a COSE_Key map"
        ),
        (
            AuthenticatorDataBuilder(flags: 0x41, publicKey: .map([(.int(1), .int(2))])).bytes,
            "credential public key lacks kty (1) or alg (3)"
        ),
        (AuthenticatorDataBuilder(flags: 0x81, extensions: .array([])).bytes, "extension outputs are not a CBOR map"),
        (
            AuthenticatorDataBuilder(flags: 0x41, credentialID: Array(repeating: 0, count: 300), publicKey: .map([]))
                .bytes.prefix(100).map { $0 },
            "credential ID is truncated"
        ),
    ])
    func malformedDataNamesTheProblem(bytes: [UInt8], why: String) {
        #expect(throws: WebAuthnError.encoding("The security key returned malformed authenticator data: \(why)")) {
            try AuthenticatorData(bytes: bytes)
        }
    }
}

struct AttestationObjectTests {
    let authData = AuthenticatorDataBuilder(flags: 0x01).bytes

    @Test func encodesFmtAttStmtAuthDataInCanonicalOrderAndDecodesBack() throws {
        let statement = CBOR.map([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1, 2, 3]))])
        let bytes = AttestationObject.encode(format: "packed", statement: statement, authenticatorData: authData)
        #expect(Array(bytes.prefix(5)) == [0xA3, 0x63, 0x66, 0x6D, 0x74])  // map(3), "fmt"
        let decoded = try CBOR.decode(bytes)
        #expect(decoded.mapValue?.map { $0.0.textValue } == ["fmt", "attStmt", "authData"])
        #expect(decoded[text: "fmt"] == .text("packed"))
        #expect(decoded[text: "attStmt"] == statement)
        #expect(decoded[text: "authData"]?.bytesValue == authData)
    }

    @Test func rawStatementIsSplicedVerbatim() throws {
        // A non-canonical map (text key "sig" before "alg") must survive byte for byte.
        let raw: [UInt8] = [0xA2, 0x63, 0x73, 0x69, 0x67, 0x41, 0x09, 0x63, 0x61, 0x6C, 0x67, 0x26]
        let bytes = AttestationObject.encode(format: "packed", statement: .raw(raw), authenticatorData: authData)
        #expect(bytes.firstRange(of: raw) != nil)
        #expect(try CBOR.decode(bytes)[text: "attStmt"]?[text: "alg"]?.intValue == -7)
    }

    @Test func noneConveyanceReplacesTheStatementButKeepsAuthenticatorData() throws {
        let key = try SigningKey.generate(.es256)
        let data = try AuthenticatorData(
            bytes: AuthenticatorDataBuilder(publicKey: AuthenticatorDataBuilder.cose(key)).bytes)
        let statement = CBOR.map([
            (.text("alg"), .int(-7)), (.text("sig"), .bytes([1])), (.text("x5c"), .array([.bytes([2])])),
        ])
        let none = try CBOR.decode(
            AttestationObject.conveyed(.none, format: "packed", statement: statement, authenticatorData: data))
        #expect(none[text: "fmt"] == .text("none"))
        #expect(none[text: "attStmt"] == .map([]))
        #expect(none[text: "authData"]?.bytesValue == data.bytes)

        for preference in [AttestationConveyance.direct, .indirect] {
            let kept = try CBOR.decode(
                AttestationObject.conveyed(
                    preference, format: "packed", statement: .raw(statement.encode()), authenticatorData: data))
            #expect(kept[text: "fmt"] == .text("packed"))
            #expect(kept[text: "attStmt"] == statement)
        }
    }

    @Test func noneConveyanceKeepsSelfAttestation() throws {
        let key = try SigningKey.generate(.es256)
        let data = try AuthenticatorData(
            bytes: AuthenticatorDataBuilder(
                aaguid: Array(repeating: 0, count: 16),
                publicKey: AuthenticatorDataBuilder.cose(key)
            ).bytes)
        let statement = CBOR.map([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1]))])
        let kept = try CBOR.decode(
            AttestationObject.conveyed(
                .none, format: "packed", statement: .raw(statement.encode()), authenticatorData: data))
        #expect(kept[text: "fmt"] == .text("packed"))
    }
}

struct CredentialJSONTests {
    @Test func registrationHasTheProtocolShape() throws {
        let key = try SigningKey.generate(.es256)
        let builder = AuthenticatorDataBuilder(credentialID: [9, 8, 7], publicKey: AuthenticatorDataBuilder.cose(key))
        let data = try AuthenticatorData(bytes: builder.bytes)
        let credential = CredentialJSON.registration(
            credentialID: [9, 8, 7], clientDataJSON: [1], attestationObject: [2], authenticatorData: data,
            transports: ["usb"], extensionResults: ["credProps": CredProps.output(residentKey: false)])

        #expect(
            credential.objectValue?.map(\.0) == [
                "type", "id", "rawId", "authenticatorAttachment", "response", "clientExtensionResults",
            ])
        #expect(credential["type"] == "public-key")
        #expect(credential["id"] == "CQgH")
        #expect(credential["rawId"] == .binary([9, 8, 7]))
        #expect(credential["authenticatorAttachment"] == "cross-platform")
        let response = try #require(credential["response"])
        #expect(
            response.objectValue?.map(\.0) == [
                "clientDataJSON", "attestationObject", "authenticatorData", "transports", "publicKey",
                "publicKeyAlgorithm",
            ])
        #expect(response["authenticatorData"] == .binary(builder.bytes))
        #expect(response["transports"] == ["usb"])
        #expect(response["publicKey"] == .binary(data.attestedCredential!.publicKey!.spkiDER))
        #expect(response["publicKeyAlgorithm"] == -7)
        #expect(credential["clientExtensionResults"]?.serializedString == #"{"credProps":{"rk":false}}"#)
        #expect(credential.serializedString.contains(#""publicKeyAlgorithm":-7}"#))
    }

    @Test func registrationWithoutExpressibleKeyHasNullPublicKey() throws {
        let odd = CBOR.map([
            (.int(1), .int(2)), (.int(3), .int(-36)), (.int(-1), .int(3)), (.int(-2), .bytes([1])),
            (.int(-3), .bytes([2])),
        ])
        let data = try AuthenticatorData(bytes: AuthenticatorDataBuilder(publicKey: odd).bytes)
        let credential = CredentialJSON.registration(
            credentialID: [1], clientDataJSON: [], attestationObject: [], authenticatorData: data, transports: [],
            extensionResults: [:])
        #expect(credential["response"]?["publicKey"] == .null)
        #expect(credential["response"]?["publicKeyAlgorithm"] == -36)
    }

    @Test func assertionHasTheProtocolShape() {
        let credential = CredentialJSON.assertion(
            credentialID: [0xFF], clientDataJSON: [1], authenticatorData: [2], signature: [3], userHandle: [4],
            extensionResults: [:])
        #expect(credential["id"] == "_w")
        #expect(
            credential["response"]?.objectValue?.map(\.0) == [
                "clientDataJSON", "authenticatorData", "signature", "userHandle",
            ])
        #expect(credential["response"]?["userHandle"] == .binary([4]))
        #expect(credential["clientExtensionResults"] == .object([]))
    }

    @Test func assertionWithoutUserHandleHasNull() {
        let credential = CredentialJSON.assertion(
            credentialID: [1], clientDataJSON: [], authenticatorData: [], signature: [], userHandle: nil,
            extensionResults: [:])
        #expect(credential["response"]?["userHandle"] == .null)
    }

    @Test func credPropsIsRequestedOnlyByTrue() {
        #expect(CredProps.isRequested(["credProps": true]))
        #expect(!CredProps.isRequested(["credProps": false]))
        #expect(!CredProps.isRequested(["credProps": "yes"]))
        #expect(!CredProps.isRequested(nil))
        #expect(CredProps.output(residentKey: true) == ["rk": true])
        #expect(CredProps.output(residentKey: nil) == .object([]))
    }
}
