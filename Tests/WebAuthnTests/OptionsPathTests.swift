import Testing

@testable import WebAuthn

/// Entry paths of long lists are rendered only on error; the messages must still name the exact entry, also in a
/// list too long to be served (the entries are converted before the list's length is refused, as in Chromium).
struct OptionsPathTests {
    static func descriptors(_ count: Int, replacing index: Int, with entry: JSONValue) -> JSONValue {
        .array((0..<count).map { $0 == index ? entry : ["type": "public-key", "id": .binary([UInt8($0 % 256), 1])] })
    }

    @Test(
        arguments: [
            (["type": "public-key"], "excludeCredentials[417].id is required"),
            (["id": .binary([1])], "excludeCredentials[417].type is required"),
            ("AQ", "excludeCredentials[417] must be a dictionary, found a string"),
            (
                ["type": "public-key", "id": .binary([1]), "transports": ["usb", 7]],
                "excludeCredentials[417].transports[1] must be a string, found a number"
            ),
            (
                ["type": "public-key", "id": .binary([1]), "transports": "usb"],
                "excludeCredentials[417].transports must be a sequence, found a string"
            ),
        ] as [(JSONValue, String)])
    func anErrorDeepInALongListNamesItsEntry(entry: JSONValue, message: String) {
        let json = creationJSON { $0.set("excludeCredentials", Self.descriptors(1000, replacing: 417, with: entry)) }
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialCreationOptions(json: json) }
                == message)
    }

    @Test func allowListEntriesAreNamedToo() {
        let json: JSONValue = [
            "challenge": .binary([1]),
            "allowCredentials": Self.descriptors(1000, replacing: 999, with: ["id": .binary([1])]),
        ]
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialRequestOptions(json: json) }
                == "allowCredentials[999].type is required")
    }

    @Test func theLongestListAllowedConvertsEveryEntryInOrder() throws {
        let entry: JSONValue = ["type": "public-key", "id": .binary([7, 7]), "transports": ["usb", "nfc"]]
        let json = creationJSON { $0.set("excludeCredentials", Self.descriptors(64, replacing: 5, with: entry)) }
        let list = try PublicKeyCredentialCreationOptions(json: json).excludeCredentials
        #expect(list.count == 64)
        #expect(list[4] == .init(id: [4, 1], transports: []))
        #expect(list[5] == .init(id: [7, 7], transports: ["usb", "nfc"]))
        #expect(list[63].id == [63, 1])
    }

    /// Entries shaped exactly {"type", "id"} skip the lookups by name; everything else goes through them.
    @Test func plainAndOtherEntriesConvertAlike() throws {
        let list: JSONValue = [
            ["type": "public-key", "id": .binary([1])], ["type": "other", "id": .binary([2])],
            ["id": .binary([3]), "type": "public-key"],
            ["type": "public-key", "id": .binary([4]), "transports": ["usb"]],
        ]
        let json = creationJSON { $0.set("excludeCredentials", list) }
        #expect(
            try PublicKeyCredentialCreationOptions(json: json).excludeCredentials
                == [
                    .init(id: [1], transports: []), .init(id: [3], transports: []), .init(id: [4], transports: ["usb"]),
                ])
    }

    @Test(arguments: [
        (
            JSONValue.object([("type", 1), ("id", .binary([1]))]),
            "excludeCredentials[1].type must be a string, found a number"
        ),
        (
            .object([("type", "public-key"), ("id", "AQ")]),
            "excludeCredentials[1].id must be a BufferSource (ArrayBuffer or typed array), found a string"
        ),
        (.object([("type", .null), ("id", .binary([1]))]), "excludeCredentials[1].type is required"),
        (.object([("type", "public-key"), ("id", .null)]), "excludeCredentials[1].id is required"),
    ])
    func twoMemberEntriesOfOtherTypesAreStillRefused(entry: JSONValue, message: String) {
        let json = creationJSON { $0.set("excludeCredentials", [["type": "public-key", "id": .binary([1])], entry]) }
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try PublicKeyCredentialCreationOptions(json: json) }
                == message)
    }

    @Test func pathsRenderAsMembersAndIndexes() {
        #expect(OptionsPath("").description == "")
        #expect(OptionsPath("user").description == "user")
        #expect(OptionsPath("pubKeyCredParams", index: 2).description == "pubKeyCredParams[2]")
    }
}
