import Testing

@testable import WebAuthn

/// allowCredentials / excludeCredentials are bounded as Chromium bounds them (crbug.com/1248862): more than 64
/// entries is a RangeError with Chromium's message, and a repeated id is sent once.
struct CredentialListBoundsTests {
    static func descriptors(
        _ count: Int, type: String = "public-key", id: (Int) -> [UInt8] = { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    )
        -> [JSONValue]
    {
        (0..<count).map { .object([("type", .string(type)), ("id", .binary(id($0)))]) }
    }

    static func request(_ list: [JSONValue]) throws(WebAuthnError) -> PublicKeyCredentialRequestOptions {
        try PublicKeyCredentialRequestOptions(
            json: .object([("challenge", .binary([1])), ("allowCredentials", .array(list))]))
    }

    static func creation(_ list: [JSONValue], user: JSONValue? = nil) throws(WebAuthnError)
        -> PublicKeyCredentialCreationOptions
    {
        try PublicKeyCredentialCreationOptions(
            json: creationJSON {
                $0.set("excludeCredentials", .array(list))
                if let user { $0.set("user", user) }
            })
    }

    @Test func sixtyFiveAllowCredentialsAreARangeErrorWithChromiumsMessage() {
        #expect(
            throws: WebAuthnError(.range, "The `allowCredentials` attribute exceeds the maximum allowed size (64).")
        ) {
            try Self.request(Self.descriptors(65))
        }
    }

    @Test func sixtyFiveExcludeCredentialsAreARangeErrorWithChromiumsMessage() {
        #expect(
            throws: WebAuthnError(.range, "The `excludeCredentials` attribute exceeds the maximum allowed size (64).")
        ) {
            try Self.creation(Self.descriptors(65))
        }
    }

    @Test func sixtyFourEntriesAreAccepted() throws {
        #expect(try Self.request(Self.descriptors(64)).allowCredentials.count == 64)
        #expect(try Self.creation(Self.descriptors(64)).excludeCredentials.count == 64)
    }

    /// Blink counts the sequence the page passed: entries of unknown types and repeats count (checked in Chromium 156).
    @Test func entriesAreCountedBeforeUnknownTypesAndRepeatsAreDropped() {
        let mixed = Self.descriptors(60) + Self.descriptors(5, type: "future-type")
        let repeated = Self.descriptors(65) { _ in [7, 7, 7] }
        for list in [mixed, repeated] {
            #expect(
                throws: WebAuthnError(.range, "The `allowCredentials` attribute exceeds the maximum allowed size (64).")
            ) {
                try Self.request(list)
            }
        }
    }

    @Test func repeatedIdsAreSentOnceKeepingTheFirstPlace() throws {
        let list: [JSONValue] = [
            ["type": "public-key", "id": .binary([2]), "transports": ["usb"]],
            ["type": "public-key", "id": .binary([1])],
            ["type": "public-key", "id": .binary([2]), "transports": ["nfc"]],
            ["type": "other", "id": .binary([3])],
            ["type": "public-key", "id": .binary([1])],
        ]
        let expected = [
            PublicKeyCredentialDescriptor(id: [2], transports: ["usb"]), PublicKeyCredentialDescriptor(id: [1]),
        ]
        #expect(try Self.request(list).allowCredentials == expected)
        #expect(try Self.creation(list).excludeCredentials == expected)
    }

    @Test func oneIdRepeatedSixtyFourTimesIsOneEntry() throws {
        let list = Self.descriptors(64) { _ in Array(repeating: 9, count: 64) }
        #expect(
            try Self.request(list).allowCredentials == [
                PublicKeyCredentialDescriptor(id: Array(repeating: 9, count: 64))
            ])
        #expect(try Self.creation(list).excludeCredentials.count == 1)
    }

    /// Chromium converts the whole dictionary before it counts: a malformed entry is a TypeError even in a list
    /// that is too long, while a user.id of the wrong length is only looked at after the count.
    @Test func aMalformedEntryIsATypeErrorBeforeTheCountButUserIDLengthAfterIt() {
        let tooLong = Self.descriptors(65)
        #expect(
            typeErrorMessage { () throws(WebAuthnError) in _ = try Self.request(tooLong + [["type": "public-key"]]) }
                == "allowCredentials[65].id is required")
        let longUserID: JSONValue = ["id": .binary(Array(repeating: 1, count: 100)), "name": "a", "displayName": "A"]
        #expect(
            throws: WebAuthnError(.range, "The `excludeCredentials` attribute exceeds the maximum allowed size (64).")
        ) {
            try Self.creation(tooLong, user: longUserID)
        }
    }
}
