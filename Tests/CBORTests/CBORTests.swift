import Testing

@testable import CBOR

struct CBORTests {
    /// RFC 8949 Appendix A vectors (the subset CTAP uses).
    @Test(arguments: [
        (CBOR.int(0), "00"), (.int(23), "17"), (.int(24), "1818"), (.int(1000), "1903e8"),
        (.int(1_000_000), "1a000f4240"), (.unsigned(18_446_744_073_709_551_615), "1bffffffffffffffff"),
        (.int(-1), "20"), (.int(-1000), "3903e7"), (.bytes([1, 2, 3, 4]), "4401020304"),
        (.text("IETF"), "6449455446"), (.text("\u{00fc}"), "62c3bc"), (.array([1, 2, 3]), "83010203"),
        (.bool(false), "f4"), (.bool(true), "f5"), (.null, "f6"),
    ])
    func encodesRFCVectors(item: CBOR, hex: String) throws {
        #expect(item.encode().hex == hex)
        #expect(try CBOR.decode(item.encode()) == item)
    }

    @Test func mapKeysAreWrittenInCTAPCanonicalOrder() {
        let map = CBOR.map([(.text("aa"), 1), (.int(-1), 2), (.int(3), 3), (.text("b"), 4), (.int(1), 5)])
        // 01, 03, 20 (one-byte keys, bytewise), then "b" (2 bytes), then "aa" (3 bytes)
        #expect(map.encode().hex == "a5" + "0105" + "0303" + "2002" + "616204" + "62616101")
    }

    @Test func rawItemsAreSplicedVerbatim() {
        let item = CBOR.map([(.text("fmt"), .text("none")), (.text("attStmt"), .raw([0xA0]))])
        #expect(item.encode().hex == "a2" + "63666d74" + "646e6f6e65" + "6761747453746d74" + "a0")
    }

    @Test func lookupByKey() throws {
        let decoded = try CBOR.decode(CBOR.map([(.int(1), .text("x")), (.text("k"), .bytes([9]))]).encode())
        #expect(decoded[int: 1]?.textValue == "x")
        #expect(decoded[text: "k"]?.bytesValue == [9])
        #expect(decoded[int: 2] == nil)
    }

    @Test(arguments: [
        ("", CBORError.truncated), ("19", .truncated), ("43aabb", .truncated), ("0001", .trailingBytes(1)),
        ("9b7fffffffffffffff", .truncated), ("bb7fffffffffffffff", .truncated), ("62c328", .invalidUTF8),
        ("6361c328", .invalidUTF8), ("6180", .invalidUTF8), ("636162", .truncated),
        ("5f", .unsupported("indefinite length or reserved additional info 31")),
    ])
    func rejectsMalformedInput(hex: String, error: CBORError) {
        #expect(throws: error) { try CBOR.decode(hex.hexBytes) }
    }

    @Test func rejectsDeepNesting() {
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBOR.decode(deep) }
    }

    @Test func prefixDecodingReportsConsumedLength() throws {
        let bytes = CBOR.map([(.int(1), 2)]).encode() + [0xFF, 0xFF]
        let (item, used) = try CBOR.decodePrefix(bytes[...])
        #expect(item[int: 1]?.intValue == 2)
        #expect(used == 3)
    }
}

extension [UInt8] {
    var hex: String {
        map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

extension String {
    var hexBytes: [UInt8] {
        var out: [UInt8] = []
        var chars = Array(self)
        while chars.count >= 2 {
            // A test's own literal: a typo shortens it, and the test's check then fails.
            guard let byte = UInt8(String(chars[0...1]), radix: 16) else { break }
            out.append(byte)
            chars.removeFirst(2)
        }
        return out
    }
}
