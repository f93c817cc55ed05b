import CBOR
import Testing

@testable import BridgeHost

/// Host-sealed largeBlobs entries (the fallback for blobs libfido2 1.12 cannot seal).
@Suite struct ExtensionLargeBlobEntryTests {
    static let key = [UInt8](repeating: 7, count: 32)
    static let otherKey = [UInt8](repeating: 8, count: 32)

    @Test(arguments: [0, 1, 5, 0xFFFF, 0x10000 + 3])
    func storedDeflateRoundTrips(size: Int) {
        let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let deflated = LargeBlobEntry.storedDeflate(data)
        #expect(deflated.count == data.count + 5 * max(1, (data.count + 0xFFFE) / 0xFFFF))
        #expect(LargeBlobEntry.inflateStored(deflated) == data)
    }

    @Test func compressedBlocksAreNotMistakenForStoredOnes() {
        #expect(LargeBlobEntry.inflateStored([0x03, 0x00]) == nil)  // a fixed-Huffman empty block
    }

    @Test func anEntryOpensOnlyWithItsKey() throws {
        let entry = try LargeBlobEntry.seal([1, 2, 3], key: Self.key)
        #expect(LargeBlobEntry.isSealed(entry, with: Self.key))
        #expect(!LargeBlobEntry.isSealed(entry, with: Self.otherKey))
    }

    @Test func writingReplacesOnlyTheKeysOwnEntry() throws {
        let others = try LargeBlobEntry.seal([9, 9], key: Self.otherKey)
        let start = CBOR.array([others, try LargeBlobEntry.seal([1], key: Self.key)]).encode()
        let updated = try LargeBlobEntry.array(start, storing: [], key: Self.key)
        let entries = try #require(try CBOR.decode(updated).arrayValue)
        #expect(entries.count == 2)
        #expect(LargeBlobEntry.storedBlob(in: updated, key: Self.key) == [])
        #expect(LargeBlobEntry.storedBlob(in: updated, key: Self.otherKey) == [9, 9])
        let appended = try LargeBlobEntry.array(CBOR.array([]).encode(), storing: [4, 5], key: Self.key)
        #expect(LargeBlobEntry.storedBlob(in: appended, key: Self.key) == [4, 5])
    }
}
