import CFIDO2
import CTAP
import FIDO
import Foundation
import Synchronization
import Testing

@testable import SoftToken

/// SoftToken keeps a bounded table of CTAPHID channels, least recently used evicted, as a key's firmware does
/// (docs/softtoken.md): libfido2 allocates one on every `fido_dev_open`, so a long host session must not grow.
@Suite struct CTAPHIDChannelTests {
    let limit = TransportState.channelLimit

    @Test func manyInitsKeepOnlyTheBoundOfChannelsAndNeverReuseAnId() throws {
        let fixture = try TokenFixture()
        let raw = try RawChannel(fixture.devicePath)
        var handedOut: [UInt32] = []
        var mostKept = 0
        for _ in 0..<(limit * 40) {
            handedOut.append(try raw.initialize())
            mostKept = max(mostKept, fixture.token.locked { fixture.token.transport.channels.count })
        }
        #expect(mostKept == limit)
        #expect(Set(handedOut).count == handedOut.count, "an evicted id is not handed out again")
        #expect(fixture.token.locked { fixture.token.transport.channels } == Array(handedOut.suffix(limit)))
    }

    /// Through libfido2's own CTAPHID code: of `limit` + 1 open devices, the one least recently used loses its
    /// channel; its next command gets ERR_INVALID_CHANNEL (libfido2: FIDO_ERR_RX), and reopening it recovers.
    @Test func theLeastRecentlyUsedChannelIsEvictedAndTheOthersKeepWorking() throws {
        let fixture = try TokenFixture()
        var devices = try (0..<limit).map { _ in try TappedDevice(path: fixture.devicePath) }
        // The first device opened is used again, so the second becomes the least recently used.
        #expect(devices[0].getInfo() == FIDO_OK)
        devices.append(try TappedDevice(path: fixture.devicePath))

        let evicted = devices.remove(at: 1)
        for device in devices { #expect(device.getInfo() == FIDO_OK) }
        #expect(evicted.getInfo() == FIDO_ERR_RX)
        let answer = try #require(evicted.reports.last)
        #expect(Array(answer[0..<4]) == RawChannel.cid(evicted.channel), "on the evicted channel")
        #expect(answer[4] == 0x80 | CTAPHIDCommand.error.rawValue)
        #expect(answer[7] == CTAPHID.ErrorCode.invalidChannel.rawValue)

        // A fresh fido_dev_open on the same handle gets a new channel, as with a key.
        #expect(evicted.reopen() == FIDO_OK)
        #expect(evicted.channel != 0)
        #expect(evicted.getInfo() == FIDO_OK)
    }

    @Test func theChannelACommandWaitsOnIsNotEvicted() throws {
        let fixture = try TokenFixture(SoftTokenConfiguration(presence: .delay(milliseconds: 600_000)))
        let waiting = try RawChannel(fixture.devicePath)
        let channel = try waiting.initialize()
        waiting.write(RawChannel.cid(channel) + [0x90, 0, 1, 0x07])  // authenticatorReset: waits for the touch
        let keepalive = try #require(waiting.read(ms: 5000))
        #expect(keepalive[4] == 0x80 | CTAPHIDCommand.keepalive.rawValue)

        let other = try RawChannel(fixture.devicePath)
        for _ in 0..<(limit * 2) { _ = try other.initialize() }
        #expect(fixture.token.locked { fixture.token.transport.channels.count } == limit)
        #expect(fixture.token.locked { fixture.token.transport.isAllocated(channel) })

        // The CANCEL still reaches the waiting command, which ends with KEEPALIVE_CANCEL on its channel.
        waiting.write(RawChannel.cid(channel) + [0x80 | CTAPHIDCommand.cancel.rawValue, 0, 0])
        var answer = try #require(waiting.read(ms: 5000))
        while answer[4] == 0x80 | CTAPHIDCommand.keepalive.rawValue { answer = try #require(waiting.read(ms: 5000)) }
        #expect(Array(answer[0..<4]) == RawChannel.cid(channel))
        #expect(answer[4] == 0x80 | CTAPHIDCommand.cbor.rawValue)
        #expect(answer[7] == CTAPStatus.keepaliveCancel.rawValue)
    }
}

/// A libfido2 device on a SoftToken through the real io hooks, with every report libfido2 reads recorded, so a
/// test can see the CTAPHID frame behind a libfido2 error.
final class TappedDevice {
    private(set) var dev: OpaquePointer?
    let path: String
    private var handle = 0

    init(path: String) throws {
        _ = fidoInitialized
        self.path = path
        dev = fido_dev_new()
        var io = ReportTap.ioFunctions
        fido_dev_set_io_functions(dev, &io)
        let status = reopen()
        guard status == FIDO_OK else { throw FIDOError(code: status, function: "fido_dev_open") }
    }

    deinit {
        fido_dev_close(dev)
        fido_dev_free(&dev)
    }

    /// Closes (if open) and opens again: a new CTAPHID_INIT, so a new channel.
    @discardableResult func reopen() -> Int32 {
        fido_dev_close(dev)
        let status = fido_dev_open(dev, path)
        handle = ReportTap.lastOpened(path: path) ?? 0
        return status
    }

    var reports: [[UInt8]] { ReportTap.reports(handle) }

    /// The channel the token handed out: the CTAPHID_INIT answer is the first report read after the open.
    var channel: UInt32 {
        guard let initAnswer = reports.first, initAnswer.count >= 19 else { return 0 }
        return initAnswer[15..<19].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func getInfo() -> Int32 {
        var info = fido_cbor_info_new()
        defer { fido_cbor_info_free(&info) }
        return fido_dev_get_cbor_info(dev, info)
    }
}

/// SoftTokenDevice's io hooks with the reports read recorded per connection handle (C callbacks capture nothing,
/// hence the global).
enum ReportTap {
    private static let state = Mutex<(opened: [String: Int], reads: [Int: [[UInt8]]])>(([:], [:]))

    static var ioFunctions: fido_dev_io_t {
        fido_dev_io_t(
            open: { path in
                let handle = SoftTokenDevice.open(path)
                if let path, let handle {
                    ReportTap.state.withLock {
                        $0.opened[String(cString: path)] = Int(bitPattern: handle)
                        $0.reads[Int(bitPattern: handle)] = []
                    }
                }
                return handle
            },
            close: { handle in SoftTokenDevice.close(handle) },
            read: { handle, buffer, length, ms in
                let count = SoftTokenDevice.read(handle, buffer, length, ms)
                if count > 0, let handle, let buffer {
                    let report = Array(UnsafeBufferPointer(start: buffer, count: Int(count)))
                    ReportTap.state.withLock { $0.reads[Int(bitPattern: handle), default: []].append(report) }
                }
                return count
            },
            write: { handle, buffer, length in SoftTokenDevice.write(handle, buffer, length) })
    }

    static func lastOpened(path: String) -> Int? { state.withLock { $0.opened[path] } }
    static func reports(_ handle: Int) -> [[UInt8]] { state.withLock { $0.reads[handle] ?? [] } }
}
