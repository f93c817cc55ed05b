import CBOR
import CFIDO2
import CTAP
import FIDO
import Foundation
import Testing

@testable import SoftToken

/// CTAPHID framing errors cannot be produced through libfido2 (it never sends malformed frames), so these
/// tests write raw reports through the very io callbacks libfido2 uses.
final class RawChannel {
    let handle: UnsafeMutableRawPointer

    init(_ path: String) throws {
        guard let opened = path.withCString({ SoftTokenDevice.open($0) }) else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "io.open")
        }
        handle = opened
    }
    deinit { SoftTokenDevice.close(handle) }

    func write(_ report: [UInt8]) {
        let framed = [0] + report + [UInt8](repeating: 0, count: 64 - report.count)
        #expect(SoftTokenDevice.write(handle, framed, framed.count) == 65)
    }

    func read(ms: Int32 = 500) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = SoftTokenDevice.read(handle, &buffer, 64, ms)
        return n == 64 ? buffer : nil
    }

    static func cid(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    /// INIT on the broadcast channel; returns the new channel id.
    func initialize(nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]) throws -> UInt32 {
        write(Self.cid(0xFFFF_FFFF) + [0x86, 0, 8] + nonce)
        let reply = try #require(read())
        #expect(Array(reply[0..<4]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(reply[4] == 0x86)
        #expect(Array(reply[7..<15]) == nonce)
        return UInt32(reply[15]) << 24 | UInt32(reply[16]) << 16 | UInt32(reply[17]) << 8 | UInt32(reply[18])
    }

    func expectError(_ code: UInt8, channel: UInt32, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let reply = read() else {
            Issue.record("no reply", sourceLocation: sourceLocation)
            return
        }
        #expect(Array(reply[0..<4]) == Self.cid(channel), sourceLocation: sourceLocation)
        #expect(reply[4] == 0xBF, "ERROR frame", sourceLocation: sourceLocation)
        #expect(reply[7] == code, sourceLocation: sourceLocation)
    }
}

@Suite struct CTAPHIDTests {
    @Test func initEchoesTheNonceAndHandsOutFreshChannels() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let first = try raw.initialize()
        let second = try raw.initialize(nonce: [9, 9, 9, 9, 9, 9, 9, 9])
        #expect(first != second)
        #expect(first != 0 && first != 0xFFFF_FFFF)
        raw.write(RawChannel.cid(0xFFFF_FFFF) + [0x86, 0, 8, 1, 1, 1, 1, 1, 1, 1, 1])
        let reply = try #require(raw.read())
        #expect(reply[19] == 2, "CTAPHID protocol version")
        #expect(reply[23] == 0x0D, "WINK | CBOR | NMSG")
    }

    @Test func pingEchoesAMultiReportMessage() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        let payload = (0..<150).map { UInt8($0) }
        raw.write(RawChannel.cid(channel) + [0x81, 0, 150] + payload[0..<57])
        raw.write(RawChannel.cid(channel) + [0] + payload[57..<116])
        raw.write(RawChannel.cid(channel) + [1] + payload[116..<150])
        var echoed: [UInt8] = []
        let head = try #require(raw.read())
        #expect(head[4] == 0x81)
        #expect(Int(head[5]) << 8 | Int(head[6]) == 150)
        echoed += head[7..<64]
        for sequence in 0..<2 {
            let next = try #require(raw.read())
            #expect(next[4] == UInt8(sequence))
            echoed += next[5..<64]
        }
        #expect(Array(echoed.prefix(150)) == payload)
    }

    @Test func winkIsAcknowledged() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        raw.write(RawChannel.cid(channel) + [0x88, 0, 0])
        let reply = try #require(raw.read())
        #expect(reply[4] == 0x88)
    }

    @Test func unknownCommandIsInvalidCommand() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        raw.write(RawChannel.cid(channel) + [0x83, 0, 1, 0])
        raw.expectError(0x01, channel: channel)
    }

    @Test func unallocatedChannelIsInvalidChannel() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        raw.write(RawChannel.cid(0x1234_5678) + [0x90, 0, 1, 0x04])
        raw.expectError(0x0B, channel: 0x1234_5678)
    }

    @Test func wrongContinuationSequenceIsInvalidSequence() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        raw.write(RawChannel.cid(channel) + [0x81, 0, 100] + [UInt8](repeating: 1, count: 57))
        raw.write(RawChannel.cid(channel) + [3] + [UInt8](repeating: 1, count: 43))
        raw.expectError(0x04, channel: channel)
    }

    @Test func badLengthsAreInvalidLength() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        raw.write(RawChannel.cid(0xFFFF_FFFF) + [0x86, 0, 7, 1, 2, 3, 4, 5, 6, 7])
        raw.expectError(0x03, channel: 0xFFFF_FFFF)
        let channel = try raw.initialize()
        raw.write(RawChannel.cid(channel) + [0x90, 0xFF, 0xFF])
        raw.expectError(0x03, channel: channel)
    }

    @Test func aNewRequestWhileOneIsArrivingIsAnError() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        raw.write(RawChannel.cid(channel) + [0x81, 0, 100] + [UInt8](repeating: 1, count: 57))
        raw.write(RawChannel.cid(channel) + [0x81, 0, 1, 1])
        raw.expectError(0x04, channel: channel)
    }

    @Test func keepaliveUpNeededIsSentWhileWaitingForTouch() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 350)))
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        // authenticatorReset: needs a touch, no parameters.
        raw.write(RawChannel.cid(channel) + [0x90, 0, 1, 0x07])
        var keepalives = 0
        while let reply = raw.read(ms: 1000) {
            #expect(Array(reply[0..<4]) == RawChannel.cid(channel))
            if reply[4] == 0xBB {
                #expect(reply[7] == 2, "STATUS_UPNEEDED")
                keepalives += 1
                continue
            }
            #expect(reply[4] == 0x90)
            #expect(reply[7] == 0x00, "reset succeeded after the touch")
            break
        }
        #expect(keepalives >= 3)
    }

    @Test func cborCommandTooLargeForMaxMsgSizeIsRefused() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        let channel = try raw.initialize()
        let length = 1300
        raw.write(
            RawChannel.cid(channel) + [0x90, UInt8(length >> 8), UInt8(length & 0xFF)]
                + [UInt8](repeating: 0x02, count: 57))
        var sent = 57
        var sequence: UInt8 = 0
        while sent < length {
            raw.write(RawChannel.cid(channel) + [sequence] + [UInt8](repeating: 0, count: min(59, length - sent)))
            sent += 59
            sequence += 1
        }
        let reply = try #require(raw.read())
        #expect(reply[4] == 0x90)
        #expect(reply[7] == CTAPStatus.requestTooLarge.rawValue)
    }
}
