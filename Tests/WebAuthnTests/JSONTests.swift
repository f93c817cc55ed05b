import Testing

@testable import WebAuthn

struct JSONTests {
    func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test(arguments: [
        #"{"a":1,"b":[true,false,null],"c":"x","d":{"e":-2.5}}"#,
        #"[]"#, #"{}"#, #"[[[]],{}]"#, #""just a string""#, #"0"#, #"-0.125"#, #"1e+300"#,
        #"{"z":1,"a":2,"m":3}"#,
    ])
    func compactDocumentsRoundTripByteForByte(text: String) throws {
        #expect(try parse(text).serializedString == text)
    }

    @Test func objectsKeepMemberOrderAndSubscriptFindsMembers() throws {
        let value = try parse(#" { "z" : 1 , "a" : { "k" : "v" } } "#)
        #expect(value.objectValue?.map(\.0) == ["z", "a"])
        #expect(value["a"]?["k"] == "v")
        #expect(value["missing"] == nil)
        #expect(JSONValue.string("s")["a"] == nil)
    }

    @Test func binaryMarkersBecomeBinaryAndSerializeBack() throws {
        let value = try parse(#"{"challenge":{"__binary__":"AQID_-8"},"empty":{"__binary__":""}}"#)
        #expect(value["challenge"] == .binary([1, 2, 3, 0xFF, 0xEF]))
        #expect(value["empty"] == .binary([]))
        #expect(value.serializedString == #"{"challenge":{"__binary__":"AQID_-8"},"empty":{"__binary__":""}}"#)
    }

    @Test func binaryMarkerWithOtherMembersStaysAnObject() throws {
        let value = try parse(#"{"__binary__":"AA","x":1}"#)
        #expect(value.objectValue?.count == 2)
    }

    @Test(arguments: [
        #"{"__binary__":"AQ=="}"#, #"{"__binary__":"A"}"#, #"{"__binary__":"a+b/"}"#,
        #"{"__binary__":5}"#, #"{"__binary__":null}"#, #"{"__binary__":"a b"}"#,
    ])
    func badBase64URLInBinaryMarkerIsAnError(text: String) {
        #expect(throws: JSONError.self) { try parse(text) }
        do { _ = try parse(text) } catch { #expect(error.reason == .invalidBinary) }
    }

    @Test func unicodeEscapesDecodeIncludingSurrogatePairs() throws {
        #expect(try parse(#""\u00e9\u20AC\ud83d\ude00\n\t\"\\\/""#) == .string("é€😀\n\t\"\\/"))
        #expect(try parse("\"é€😀\"") == .string("é€😀"))
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try parse(#""a\ud800b""#) == .string("a\u{FFFD}b"))
        #expect(try parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(try parse(#""\ud800\u0041""#) == .string("\u{FFFD}A"))
    }

    @Test func serializerNeverEscapesSlashAndEscapesControlCharacters() {
        let value = JSONValue.string("https://a/b \"q\" \\ \n\u{01}\u{1F} é😀")
        #expect(value.serializedString == #""https://a/b \"q\" \\ \n\u0001\u001f é😀""#)
    }

    @Test(arguments: [
        (JSONValue.number(-7), "-7"), (.number(300000), "300000"), (.number(0.5), "0.5"),
        (.number(-0.0), "0"), (.number(1e21), "1e+21"), (.number(9_007_199_254_740_991), "9007199254740991"),
        (.number(.infinity), "null"), (.number(.nan), "null"),
    ])
    func numbersPrintIntegersWithoutFraction(value: JSONValue, text: String) {
        #expect(value.serializedString == text)
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("12345678901234567890", 12345678901234567890.0), ("1.5e3", 1500),
        ("1E-2", 0.01), ("-123.456", -123.456), ("4294967295", 4_294_967_295),
    ])
    func numbersParse(text: String, expected: Double) throws {
        #expect(try parse(text) == .number(expected))
    }

    @Test(arguments: [
        ("", JSONError.Reason.empty), ("   ", .unexpectedEnd), ("{", .unexpectedEnd),
        (#"{"a":1,}"#, .unexpectedByte(0x7D)),
        ("[1,]", .unexpectedByte(0x5D)), ("[1 2]", .unexpectedByte(0x32)), ("01", .trailingContent),
        ("1.", .invalidNumber), ("-", .invalidNumber), (".5", .unexpectedByte(0x2E)), ("1e", .invalidNumber),
        ("+1", .unexpectedByte(0x2B)), ("1e999", .invalidNumber), ("NaN", .unexpectedByte(0x4E)),
        ("tru", .unexpectedEnd), ("nul1", .unexpectedByte(0x31)), (#""abc"#, .unexpectedEnd),
        (#""\x""#, .invalidEscape), (#""\u12g4""#, .invalidEscape), ("\"a\u{01}b\"", .unescapedControlCharacter),
        (#"{"a":1,"a":2}"#, .duplicateKey("a")), ("{1:2}", .unexpectedByte(0x31)), (#"{"a" 1}"#, .unexpectedByte(0x31)),
        ("[] []", .trailingContent), ("// c\n{}", .unexpectedByte(0x2F)), ("'a'", .unexpectedByte(0x27)),
    ])
    func invalidJSONIsRefusedWithAReason(text: String, reason: JSONError.Reason) {
        do {
            let value = try parse(text)
            Issue.record("parsed \(value)")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func invalidUTF8IsRefused() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0xEF, 0xBB, 0xBF, 0x31],
        ] {
            #expect(throws: JSONError.self) { try JSONValue.parse(bytes) }
        }
        do { _ = try JSONValue.parse([0x22, 0xFF, 0x22]) } catch { #expect(error.reason == .invalidUTF8) }
    }

    @Test func nestingBeyondTheLimitIsRefused() throws {
        let ok = String(repeating: "[", count: JSONValue.maxDepth) + String(repeating: "]", count: JSONValue.maxDepth)
        #expect(throws: Never.self) { try parse(ok) }
        let deep =
            String(repeating: "[", count: JSONValue.maxDepth + 1)
            + String(repeating: "]", count: JSONValue.maxDepth + 1)
        do {
            _ = try parse(deep)
            Issue.record("accepted")
        } catch { #expect(error.reason == .tooDeep) }
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        do {
            _ = try parse(hostile)
            Issue.record("accepted")
        } catch { #expect(error.reason == .tooDeep) }
    }

    @Test func largeArraysAndBinaryRoundTrip() throws {
        let items = JSONValue.array((0..<50_000).map { .number(Double($0)) })
        #expect(try JSONValue.parse(items.serialized()) == items)
        let blob = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = JSONValue.object([("data", .binary(blob))])
        #expect(try JSONValue.parse(frame.serialized()) == frame)
    }

    @Test func errorsSayWhereAndWhat() {
        do { _ = try parse(#"{"a":tru}"#) } catch {
            #expect(error.offset == 8)
            #expect(error.description == "invalid JSON at byte 8 (in a): unexpected character '}'")
        }
        do { _ = try parse(#"{} x"#) } catch {
            #expect(error.path.isEmpty, "content after the document is not inside any member")
            #expect(error.description == "invalid JSON at byte 3: content after the JSON value")
        }
    }

    @Test func duplicateNamesAreFoundInLargeObjectsToo() throws {
        let members = (0..<12).map { "\"k\($0)\": \($0)" } + ["\"k2\": 99"]
        do {
            _ = try parse("{" + members.joined(separator: ", ") + "}")
            Issue.record("a duplicate member was accepted")
        } catch {
            #expect(error.reason == .duplicateKey("k2"))
        }
        #expect(try parse("{" + members.dropLast().joined(separator: ", ") + "}").objectValue?.count == 12)
    }

    @Test func errorsNameTheMemberTheyAreIn() {
        let frame = #"{"options": {"allowCredentials": [{"id": {"__binary__": "AQ"}}, {"id": {"__binary__": "*"}}]}}"#
        do {
            _ = try parse(frame)
            Issue.record("a bad __binary__ value was accepted")
        } catch {
            #expect(error.reason == .invalidBinary)
            #expect(error.path == ["options", "allowCredentials", "[1]", "id"])
            #expect(
                error.description.contains("(in options.allowCredentials[1].id): __binary__ value is not base64url"))
        }
    }
}

struct Base64URLTests {
    @Test(arguments: [
        ([UInt8](), ""), ([0x66], "Zg"), ([0x66, 0x6F], "Zm8"), ([0x66, 0x6F, 0x6F], "Zm9v"),
        ([0xFB, 0xFF, 0xBF], "-_-_"), ([0, 0, 0, 0], "AAAAAA"),
    ])
    func encodesWithoutPaddingAndDecodesBack(bytes: [UInt8], text: String) {
        #expect(Base64URL.encode(bytes) == text)
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test(arguments: ["Zg==", "Z", "Zm9v+", "Zm/v", "Zm 9", "Zm9\n", "é"])
    func decodeRejectsPaddingForeignCharactersAndImpossibleLengths(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

/// The decoder works four characters at a time with a separate tail; these cover every length and position.
struct Base64URLBlockTests {
    @Test func everyLengthRoundTrips() {
        for length in 0...70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ length) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "length \(length)")
        }
    }

    @Test func aForeignCharacterAnywhereIsRefused() {
        for length in [2, 3, 4, 6, 7, 8, 10, 11, 12, 15, 16, 18, 19, 20, 23, 24, 26, 27] {
            let valid = Array(String(repeating: "Az9-_", count: 6).utf8.prefix(length))
            #expect(Base64URL.decode(String(decoding: valid, as: UTF8.self)) != nil)
            for position in 0..<length {
                for foreign in [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), 0x80, 0x00] {
                    var text = valid
                    text[position] = foreign
                    #expect(
                        text.withUnsafeBufferPointer { Base64URL.decode(utf8: $0) } == nil,
                        "length \(length), \(foreign) at \(position)")
                }
            }
        }
    }

    /// Values up to `stagedDecodeLimit` bytes are decoded on the stack and copied, longer ones in place: both
    /// paths, and the lengths around the switch, must give the same bytes and refuse the same text.
    @Test func bothSidesOfTheStagingLimitDecodeAndRefuse() {
        let limit = Base64URL.stagedDecodeLimit
        for length in [limit - 2, limit - 1, limit, limit + 1, limit + 2, 4 * limit] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let text = Array(Base64URL.encode(bytes).utf8)
            #expect(text.withUnsafeBufferPointer { Base64URL.decode(utf8: $0) } == bytes, "length \(length)")
            for position in [0, text.count / 2, text.count - 1] {
                var bad = text
                bad[position] = UInt8(ascii: "=")
                #expect(
                    bad.withUnsafeBufferPointer { Base64URL.decode(utf8: $0) } == nil,
                    "length \(length), at \(position)")
            }
        }
    }

    @Test func unusedLowBitsOfTheLastCharacterAreIgnored() {
        #expect(Base64URL.decode("Zh") == [0x66])
        #expect(Base64URL.decode("Zm9") == [0x66, 0x6F])
        #expect(Base64URL.decode("Zm-") == [0x66, 0x6F])
    }
}

/// Plain ASCII strings skip UTF-8 validation; one byte of anything else must bring it back.
struct JSONStringFastPathTests {
    @Test func aNonASCIIByteAfterASCIIIsStillValidated() {
        for bytes: [UInt8] in [
            [0x22, 0x61, 0x62, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0x61, 0xED, 0xA0, 0x80, 0x22],
        ] {
            do {
                _ = try JSONValue.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.reason == .invalidUTF8)
                #expect(error.offset == 1)
            }
        }
    }

    @Test func asciiAndNonASCIIStringsKeepTheirText() throws {
        #expect(
            try JSONValue.parse(Array(#"["public-key","abcé","a\nb","\u00e9x"]"#.utf8))
                == .array(["public-key", "abcé", "a\nb", "éx"]))
    }
}
