import FIDO
import Testing

@testable import BridgeHost

/// How a long allow/exclude list is split for a key's limits.
struct CredentialBatchesTests {
    static func ids(_ count: Int, length: Int = 64) -> [[UInt8]] {
        (0..<count).map { n in (0..<length).map { UInt8(truncatingIfNeeded: n &+ $0) } }
    }

    static func info(maxMessageSize: Int = 0, maxCount: Int = 0, maxIDLength: Int = 0) -> AuthenticatorInfo {
        var info = AuthenticatorInfo()
        info.maxMessageSize = maxMessageSize
        info.maxCredentialCountInList = maxCount
        info.maxCredentialIDLength = maxIDLength
        return info
    }

    static func flattened(_ batches: CredentialBatches) -> [[UInt8]] { (0..<batches.count).flatMap { batches[$0] } }

    @Test func aThousandIdsFillTheMessageBudgetInOrder() {
        let list = Self.ids(1000)
        // (1200 - 320) bytes of room, 64 + 24 bytes per entry: 10 ids a request.
        let batches = CredentialBatches(list, info: Self.info(maxMessageSize: 1200))
        #expect(batches.count == 100)
        #expect((0..<batches.count).allSatisfy { batches[$0].count == 10 })
        #expect(Self.flattened(batches) == list)
    }

    @Test func theKeysCountLimitSplitsToo() {
        let list = Self.ids(10, length: 16)
        let batches = CredentialBatches(list, info: Self.info(maxMessageSize: 4096, maxCount: 4))
        #expect((0..<batches.count).map { batches[$0].count } == [4, 4, 2])
        #expect(Self.flattened(batches) == list)
    }

    @Test func idsLongerThanTheKeysMaximumAreLeftOut() {
        let list = [Self.ids(1, length: 16)[0], Self.ids(1, length: 33)[0], Self.ids(1, length: 32)[0]]
        let batches = CredentialBatches(list, info: Self.info(maxMessageSize: 1200, maxIDLength: 32))
        #expect(Self.flattened(batches) == [list[0], list[2]])
    }

    @Test func anIdAboveTheBudgetGoesAlone() {
        let list = [Self.ids(1, length: 8)[0], Self.ids(1, length: 1000)[0], Self.ids(1, length: 8)[0]]
        let batches = CredentialBatches(list, info: Self.info(maxMessageSize: 1200))
        #expect((0..<batches.count).map { batches[$0] } == [[list[0]], [list[1]], [list[2]]])
    }

    @Test func anEmptyListHasNoBatches() {
        #expect(CredentialBatches([], info: Self.info()).count == 0)
    }

    /// Only a list sent whole may be answered by the request itself; any other needs the silent look with the PIN.
    @Test(arguments: [
        (count: 4, maxIDLength: 0, whole: true), (count: 11, maxIDLength: 0, whole: false),
        (count: 4, maxIDLength: 32, whole: false), (count: 0, maxIDLength: 0, whole: false),
    ])
    func aListFitsOneRequestOnlyWholeAndInOneBatch(count: Int, maxIDLength: Int, whole: Bool) {
        let batches = CredentialBatches(
            Self.ids(count), info: Self.info(maxMessageSize: 1200, maxIDLength: maxIDLength))
        #expect(batches.fitsOneRequest == whole)
    }
}
