import Testing

@testable import WebAuthn

// The shapes every allow/exclude list entry takes, binary values and descriptors, in each spelling JSON allows,
// and the error (reason, offset, path) for each way off the shape.

/// Parses `text` expecting an error with this reason and offset (and path, when given).
func expectJSONError(_ text: String, _ reason: JSONError.Reason, at offset: Int, path: [String]? = nil) {
    do {
        let value = try JSONValue.parse(Array(text.utf8))
        Issue.record("parsed \(value)")
    } catch {
        #expect(error.reason == reason)
        #expect(error.offset == offset)
        if let path { #expect(error.path == path) }
    }
}

/// `{"__binary__": "<base64url>"}` in any spelling is binary; anything off its shape is an object or an error.
struct JSONBinaryMarkerTests {
    func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test(arguments: [
        #"{"__binary__":"AQID"}"#, #"{ "__binary__" : "AQID" }"#, "{\n\t\"__binary__\"\r\n:\"AQID\"\n}",
        #"{"__binary__":"AQ\u0049D"}"#, #"{"\u005f_binary__":"AQID"}"#, #"{"__binary__":"AQI\u0044"}"#,
    ])
    func markersInAnySpellingBecomeBinary(text: String) throws {
        #expect(try parse(text) == .binary([1, 2, 3]))
    }

    @Test func markersInsideAListDecodeEach() throws {
        let text =
            "["
            + (0..<5).map { #"{"type":"public-key","id":{"__binary__":"\#(Base64URL.encode([UInt8($0), 9]))"}}"# }
            .joined(separator: ",") + "]"
        let ids = try parse(text).arrayValue?.compactMap { $0["id"]?.binaryValue }
        #expect(ids == (0..<5).map { [UInt8($0), 9] })
    }

    @Test(arguments: [
        (#"{"__binary__":"A"}"#, JSONError.Reason.invalidBinary, 14),
        (#"{"__binary__":"AQ=="}"#, .invalidBinary, 14),
        (#"{ "__binary__" : "A*" }"#, .invalidBinary, 17),
        (#"{"__binary__":"AQID""#, .unexpectedEnd, 20),
        (#"{"__binary__":"AQID"#, .unexpectedEnd, 19),
        (#"{"__binary__""#, .unexpectedEnd, 13),
        (#"{"__binary__":"AQID",}"#, .unexpectedByte(0x7D), 21),
        (#"{"__binary__":"AQID" "x"}"#, .unexpectedByte(0x22), 21),
        (#"{"__binary__":"AQID","__binary__":"AA"}"#, .duplicateKey("__binary__"), 21),
        ("{\"__binary__\":\"AQ\u{01}D\"}", .unescapedControlCharacter, 17),
    ])
    func malformedMarkersFailWithTheGeneralParsersError(text: String, reason: JSONError.Reason, offset: Int) {
        expectJSONError(text, reason, at: offset)
    }

    @Test func aMarkerWithMoreMembersStaysAnObjectWithItsString() throws {
        let value = try parse(#"{"__binary__":"AQID","x":1}"#)
        #expect(value == .object([("__binary__", "AQID"), ("x", 1)]))
    }
}

/// Names every list entry repeats, and their near misses, keep their text.
struct JSONRepeatedNameTests {
    @Test func repeatedNamesAndTheirNearMissesKeepTheirText() throws {
        let names = [
            "id", "ie", "Id", "type", "typf", "public-key", "public-kez", "transports", "transportz", "tYpe", "i",
            "types",
        ]
        let text = "{" + names.enumerated().map { #""\#($1)":"\#($1)-\#($0)""# }.joined(separator: ",") + "}"
        let members = try JSONValue.parse(Array(text.utf8)).objectValue
        #expect(members?.map(\.0) == names)
        #expect(members?.map { $0.1.stringValue } == names.enumerated().map { "\($1)-\($0)" })
        #expect(
            try JSONValue.parse(Array(#"["public-key","transports","id","type"]"#.utf8)) == [
                "public-key", "transports", "id", "type",
            ])
    }
}

/// `{"type":"public-key","id":…` in any spelling, with more members or errors after it.
struct JSONDescriptorShapeTests {
    func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test(arguments: [
        #"{"type":"public-key","id":{"__binary__":"AQID"}}"#,
        #"{ "type" : "public-key" , "id" : {"__binary__":"AQID"} }"#,
        #"{"type":"public-key","id": {"__binary__":"AQID"} }"#,
        #"{"type":"public-ke\u0079","id":{"__binary__":"AQID"}}"#,
    ])
    func descriptorsParseAlikeInAnySpelling(text: String) throws {
        #expect(try parse(text) == .object([("type", "public-key"), ("id", .binary([1, 2, 3]))]))
    }

    @Test func moreMembersFollowInOrder() throws {
        let value = try parse(#"{"type":"public-key","id":{"__binary__":"AQ"},"transports":["usb","nfc"]}"#)
        #expect(value == .object([("type", "public-key"), ("id", .binary([1])), ("transports", ["usb", "nfc"])]))
    }

    @Test func otherTypesAndOrdersAreKeptAsSent() throws {
        #expect(try parse(#"{"type":"public-keys","id":1}"#) == .object([("type", "public-keys"), ("id", 1)]))
        #expect(try parse(#"{"id":1,"type":"public-key"}"#) == .object([("id", 1), ("type", "public-key")]))
    }

    @Test(arguments: [
        (
            #"{"type":"public-key","id":{"__binary__":"AQ"},"type":"x"}"#, JSONError.Reason.duplicateKey("type"), 46,
            [String]()
        ),
        (#"{"type":"public-key","id":{"__binary__":"AQ"},"id":1}"#, .duplicateKey("id"), 46, []),
        (#"{"type":"public-key","id":{"__binary__":"A"}}"#, .invalidBinary, 40, ["id"]),
        (#"{"type":"public-key","id":"#, .unexpectedEnd, 26, ["id"]),
        (#"{"type":"public-key","id":1 2}"#, .unexpectedByte(0x32), 28, []),
        (#"{"type":"public-key","id":1,}"#, .unexpectedByte(0x7D), 28, []),
        (
            #"[{"type":"public-key","id":{"__binary__":"AQ"}},{"type":"public-key","id":tru}]"#, .unexpectedByte(0x7D),
            77, ["[1]", "id"]
        ),
    ])
    func malformedDescriptorsFailWithTheGeneralParsersError(
        text: String, reason: JSONError.Reason, offset: Int, path: [String]
    ) {
        expectJSONError(text, reason, at: offset, path: path)
    }
}
