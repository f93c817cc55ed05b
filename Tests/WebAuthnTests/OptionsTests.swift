import Testing

@testable import WebAuthn

/// A valid creation-options dictionary, edited per test.
func creationJSON(_ edit: (inout [(String, JSONValue)]) -> Void = { _ in }) -> JSONValue {
    var members: [(String, JSONValue)] = [
        ("rp", ["id": "example.com", "name": "Example"]),
        ("user", ["id": .binary([1, 2, 3]), "name": "alice", "displayName": "Alice"]),
        ("challenge", .binary(Array(repeating: 7, count: 32))),
        ("pubKeyCredParams", [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]]),
    ]
    edit(&members)
    return .object(members)
}

extension Array where Element == (String, JSONValue) {
    mutating func set(_ key: String, _ value: JSONValue?) {
        removeAll { $0.0 == key }
        if let value { append((key, value)) }
    }
}

func typeErrorMessage(_ body: () throws(WebAuthnError) -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        #expect(error.name == .typeError)
        return error.message
    }
}

struct CreationOptionsTests {
    @Test func validOptionsConvertWithDefaults() throws {
        let options = try PublicKeyCredentialCreationOptions(json: creationJSON())
        #expect(options.rp.id == "example.com")
        #expect(options.rp.name == "Example")
        #expect(options.user.id == [1, 2, 3])
        #expect(options.user.name == "alice")
        #expect(options.user.displayName == "Alice")
        #expect(options.challenge.count == 32)
        #expect(options.pubKeyCredParams == [-7, -257])
        #expect(options.timeoutMilliseconds == nil)
        #expect(options.excludeCredentials.isEmpty)
        #expect(options.authenticatorAttachment == nil)
        #expect(options.residentKey == .discouraged)
        #expect(options.userVerification == .preferred)
        #expect(options.attestation == .none)
        #expect(options.extensions == nil)
    }

    @Test(
        arguments: [
            ("rp", nil, "rp is required"),
            ("rp", ["id": "example.com"], "rp.name is required"),
            ("rp", ["name": 5], "rp.name must be a string, found a number"),
            ("rp", "example.com", "rp must be a dictionary, found a string"),
            ("user", nil, "user is required"),
            ("user", ["name": "a", "displayName": "A"], "user.id is required"),
            (
                "user", ["id": "AQID", "name": "a", "displayName": "A"],
                "user.id must be a BufferSource (ArrayBuffer or typed array), found a string"
            ),
            ("user", ["id": .binary([1]), "displayName": "A"], "user.name is required"),
            ("user", ["id": .binary([1]), "name": "a"], "user.displayName is required"),
            ("challenge", nil, "challenge is required"),
            ("challenge", .null, "challenge is required"),
            ("challenge", [1, 2], "challenge must be a BufferSource (ArrayBuffer or typed array), found an array"),
            ("pubKeyCredParams", nil, "pubKeyCredParams is required"),
            ("pubKeyCredParams", ["type": "public-key"], "pubKeyCredParams must be a sequence, found an object"),
            ("pubKeyCredParams", [["type": "public-key"]], "pubKeyCredParams[0].alg is required"),
            (
                "pubKeyCredParams", [["type": "public-key", "alg": -7], ["alg": -8]],
                "pubKeyCredParams[1].type is required"
            ),
            (
                "pubKeyCredParams", [["type": "public-key", "alg": "ES256"]],
                "pubKeyCredParams[0].alg must be a number, found a string"
            ),
            ("timeout", "60000", "timeout must be a number, found a string"),
            ("excludeCredentials", [["type": "public-key"]], "excludeCredentials[0].id is required"),
            (
                "excludeCredentials", [["type": "public-key", "id": .binary([1]), "transports": [1]]],
                "excludeCredentials[0].transports[0] must be a string, found a number"
            ),
            (
                "authenticatorSelection", ["requireResidentKey": "yes"],
                "authenticatorSelection.requireResidentKey must be a boolean, found a string"
            ),
            (
                "authenticatorSelection", ["userVerification": 1],
                "authenticatorSelection.userVerification must be a string, found a number"
            ),
            ("authenticatorSelection", true, "authenticatorSelection must be a dictionary, found a boolean"),
            ("attestation", false, "attestation must be a string, found a boolean"),
            ("extensions", [], "extensions must be a dictionary, found an array"),
        ] as [(String, JSONValue?, String)])
    func missingOrMistypedMemberIsATypeErrorNamingIt(member: String, value: JSONValue?, message: String) {
        let json = creationJSON { $0.set(member, value) }
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialCreationOptions(json: json) }
                == message)
    }

    @Test func optionsThatAreNotADictionaryAreATypeError() {
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialCreationOptions(json: "x") }
                == "publicKey options must be a dictionary, found a string")
    }

    @Test func userIDOfOneAndSixtyFourBytesIsAccepted() throws {
        for count in [1, 64] {
            let json = creationJSON {
                $0.set("user", ["id": .binary(Array(repeating: 9, count: count)), "name": "a", "displayName": "A"])
            }
            let options = try PublicKeyCredentialCreationOptions(json: json)
            try options.checkBeforeRelyingParty()
            #expect(options.user.id.count == count)
        }
    }

    /// Converted first (Chromium checks the extension inputs in between), then refused, in Chromium's order.
    @Test(
        arguments: [
            (
                0, [["type": "future", "alg": -7]],
                WebAuthnError(.notSupported, "Required parameters missing in `options.publicKey`.")
            ),
            (65, [["type": "public-key", "alg": -7]], WebAuthnError(.typeError, "User handle exceeds 64 bytes.")),
            (
                0, [["type": "public-key", "alg": -7]],
                WebAuthnError(.typeError, "user.id must be 1 to 64 bytes, found 0")
            ),
        ] as [(Int, JSONValue, WebAuthnError)])
    func unusableParametersOrUserIDAreRefusedBeforeTheRelyingParty(
        userID: Int, params: JSONValue, refusal: WebAuthnError
    )
        throws
    {
        let json = creationJSON {
            $0.set("user", ["id": .binary(Array(repeating: 9, count: userID)), "name": "a", "displayName": "A"])
            $0.set("pubKeyCredParams", params)
        }
        let options = try PublicKeyCredentialCreationOptions(json: json)
        #expect(throws: refusal) { try options.checkBeforeRelyingParty() }
    }

    @Test func emptyPubKeyCredParamsDefaultsToES256AndRS256() throws {
        let json = creationJSON { $0.set("pubKeyCredParams", []) }
        #expect(try PublicKeyCredentialCreationOptions(json: json).pubKeyCredParams == [-7, -257])
    }

    @Test func unknownCredentialTypesAreSkippedKeepingPageOrder() throws {
        let json = creationJSON {
            $0.set(
                "pubKeyCredParams",
                [
                    ["type": "password", "alg": -7], ["type": "public-key", "alg": -8],
                    ["type": "public-key", "alg": -7],
                ])
        }
        #expect(try PublicKeyCredentialCreationOptions(json: json).pubKeyCredParams == [-8, -7])
        let none = creationJSON { $0.set("pubKeyCredParams", [["type": "future", "alg": -7]]) }
        #expect(try PublicKeyCredentialCreationOptions(json: none).pubKeyCredParams == [])
    }

    @Test func algorithmsConvertAsWebIDLLong() throws {
        let json = creationJSON {
            $0.set(
                "pubKeyCredParams",
                [["type": "public-key", "alg": -7.9], ["type": "public-key", "alg": 4_294_967_289]])
        }
        #expect(try PublicKeyCredentialCreationOptions(json: json).pubKeyCredParams == [-7, -7])
    }

    @Test(
        arguments: [
            (nil, nil, ResidentKeyRequirement.discouraged), (nil, false, .discouraged), (nil, true, .required),
            ("preferred", nil, .preferred), ("discouraged", true, .discouraged), ("required", false, .required),
            ("sometimes", true, .required), ("sometimes", nil, .discouraged),
        ] as [(String?, Bool?, ResidentKeyRequirement)])
    func residentKeyFollowsResidentKeyThenLegacyRequireResidentKey(
        residentKey: String?, legacy: Bool?, expected: ResidentKeyRequirement
    ) throws {
        var selection: [(String, JSONValue)] = []
        if let residentKey { selection.append(("residentKey", .string(residentKey))) }
        if let legacy { selection.append(("requireResidentKey", .bool(legacy))) }
        let json = creationJSON { $0.set("authenticatorSelection", .object(selection)) }
        #expect(try PublicKeyCredentialCreationOptions(json: json).residentKey == expected)
    }

    @Test(arguments: [
        ("none", AttestationConveyance.none), ("indirect", .indirect), ("direct", .direct), ("enterprise", .direct),
        ("bogus", .none),
    ])
    func attestationConveyanceEnterpriseIsDirectAndUnknownIsNone(value: String, expected: AttestationConveyance) throws
    {
        let json = creationJSON { $0.set("attestation", .string(value)) }
        #expect(try PublicKeyCredentialCreationOptions(json: json).attestation == expected)
    }

    @Test func unknownEnumerationValuesAreIgnored() throws {
        let json = creationJSON {
            $0.set("authenticatorSelection", ["authenticatorAttachment": "watch", "userVerification": "always"])
        }
        let options = try PublicKeyCredentialCreationOptions(json: json)
        #expect(options.authenticatorAttachment == nil)
        #expect(options.userVerification == .preferred)
    }

    @Test func selectionTimeoutExcludeListAndExtensionsAreKept() throws {
        let json = creationJSON {
            $0.set(
                "authenticatorSelection", ["authenticatorAttachment": "cross-platform", "userVerification": "required"])
            $0.set("timeout", 60000)
            $0.set(
                "excludeCredentials",
                [
                    ["type": "public-key", "id": .binary([1]), "transports": ["usb", "nfc"]],
                    ["type": "other", "id": .binary([2])], ["type": "public-key", "id": .binary([3])],
                ])
            $0.set("extensions", ["credProps": true])
            $0.set("hints", ["security-key"])
        }
        let options = try PublicKeyCredentialCreationOptions(json: json)
        #expect(options.authenticatorAttachment == "cross-platform")
        #expect(options.userVerification == .required)
        #expect(options.timeoutMilliseconds == 60000)
        #expect(options.excludeCredentials == [.init(id: [1], transports: ["usb", "nfc"]), .init(id: [3])])
        #expect(options.extensions == ["credProps": true])
    }

    @Test func nullMembersCountAsAbsent() throws {
        let json = creationJSON {
            $0.set("timeout", .null)
            $0.set("authenticatorSelection", .null)
            $0.set("rp", ["id": .null, "name": "Example"])
        }
        let options = try PublicKeyCredentialCreationOptions(json: json)
        #expect(options.timeoutMilliseconds == nil)
        #expect(options.rp.id == nil)
    }

    @Test func anEmptyExcludedIdNamesNoCredential() throws {
        let json = creationJSON {
            $0.set(
                "excludeCredentials",
                [["type": "public-key", "id": .binary([])], ["type": "public-key", "id": .binary([4])]])
        }
        #expect(try PublicKeyCredentialCreationOptions(json: json).excludeCredentials == [.init(id: [4])])
    }

    @Test(arguments: [(-1.0, 4_294_967_295), (1.5, 1), (Double.infinity, 0), (4_294_967_301, 5)] as [(Double, Int)])
    func timeoutConvertsAsWebIDLUnsignedLong(value: Double, expected: Int) throws {
        let json = creationJSON { $0.set("timeout", .number(value)) }
        #expect(try PublicKeyCredentialCreationOptions(json: json).timeoutMilliseconds == expected)
    }
}

struct RequestOptionsTests {
    @Test func validOptionsConvertWithDefaults() throws {
        let options = try PublicKeyCredentialRequestOptions(json: ["challenge": .binary([1, 2])])
        #expect(options.challenge == [1, 2])
        #expect(options.timeoutMilliseconds == nil)
        #expect(options.rpId == nil)
        #expect(options.allowCredentials.isEmpty)
        #expect(options.userVerification == .preferred)
        #expect(options.extensions == nil)
    }

    @Test func allMembersAreRead() throws {
        let options = try PublicKeyCredentialRequestOptions(json: [
            "challenge": .binary([1]), "timeout": 120000, "rpId": "example.com", "userVerification": "discouraged",
            "allowCredentials": [
                ["type": "public-key", "id": .binary([5, 6]), "transports": ["usb"]],
                ["type": "x", "id": .binary([1])],
            ],
            "extensions": ["appid": "https://example.com"],
        ])
        #expect(options.timeoutMilliseconds == 120000)
        #expect(options.rpId == "example.com")
        #expect(options.userVerification == .discouraged)
        #expect(options.allowCredentials == [.init(id: [5, 6], transports: ["usb"])])
        #expect(options.extensions?["appid"] == "https://example.com")
    }

    static let malformed: [(JSONValue, String)] = {
        let one = JSONValue.binary([1])
        var cases: [(JSONValue, String)] = []
        cases.append((.object([]), "challenge is required"))
        cases.append(
            (
                .object([("challenge", .string("abc"))]),
                "challenge must be a BufferSource (ArrayBuffer or typed array), found a string"
            ))
        cases.append((.object([("challenge", one), ("rpId", .number(1))]), "rpId must be a string, found a number"))
        cases.append(
            (
                .object([("challenge", one), ("allowCredentials", .array([.object([("id", one)])]))]),
                "allowCredentials[0].type is required"
            ))
        cases.append(
            (
                .object([
                    ("challenge", one),
                    ("allowCredentials", .array([.object([("type", "public-key"), ("id", "AQ")])])),
                ]),
                "allowCredentials[0].id must be a BufferSource (ArrayBuffer or typed array), found a string"
            ))
        cases.append(
            (
                .object([("challenge", one), ("allowCredentials", .string("all"))]),
                "allowCredentials must be a sequence, found a string"
            ))
        cases.append((.array([.number(1)]), "publicKey options must be a dictionary, found an array"))
        return cases
    }()

    @Test(arguments: malformed)
    func missingOrMistypedMemberIsATypeErrorNamingIt(json: JSONValue, message: String) {
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialRequestOptions(json: json) }
                == message)
    }
}

struct TimeoutTests {
    @Test(
        arguments: [
            (nil, 300_000), (0, 30_000), (1, 30_000), (29_999, 30_000), (30_000, 30_000), (60_000, 60_000),
            (600_000, 600_000), (600_001, 600_000), (4_294_967_295, 600_000),
        ] as [(Int?, Int)])
    func timeoutIsDefaultedAndClamped(requested: Int?, effective: Int) {
        #expect(Timeouts.effective(milliseconds: requested) == effective)
    }
}

struct AlgorithmSelectionTests {
    @Test func keepsPageOrderFiltersToSupportedAndDropsDuplicates() throws {
        #expect(try AlgorithmSelection.choose(requested: [-257, -8, -7, -8, -35], supported: [-7, -8]) == [-8, -7])
    }

    @Test func nothingSupportedIsNotAllowedErrorAsTheBrowsersAnswer() {
        #expect(
            throws: WebAuthnError(
                .notAllowed,
                "None of the requested public key algorithms (-257, -37) is supported by this security key")
        ) {
            try AlgorithmSelection.choose(requested: [-257, -37], supported: [-7])
        }
    }
}

struct EntityNameTests {
    @Test func aNameWithinSixtyFourBytesIsKeptWhole() {
        let name = String(repeating: "a", count: 64)
        #expect(EntityName.forAuthenticator(name) == name)
        #expect(EntityName.forAuthenticator("") == "")
    }

    @Test func aLongerNameIsCutAtSixtyFourBytesOnACharacterBoundary() {
        #expect(
            EntityName.forAuthenticator(String(repeating: "n", count: 100_000)) == String(repeating: "n", count: 64))
        // "é" is two bytes: 32 fit, the 33rd would split at byte 65.
        #expect(EntityName.forAuthenticator(String(repeating: "é", count: 200)) == String(repeating: "é", count: 32))
        // 63 ASCII bytes, then a 4-byte emoji that does not fit whole.
        let cut = EntityName.forAuthenticator(String(repeating: "x", count: 63) + "😀")
        #expect(cut == String(repeating: "x", count: 63))
        #expect(cut.utf8.count <= EntityName.maximumBytes)
    }
}
