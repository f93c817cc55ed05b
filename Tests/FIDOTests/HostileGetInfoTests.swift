import CBOR
import CFIDO2
import FIDO
import Synchronization
import Testing

/// A key is outside input too: one whose getInfo carries limits beyond Int (CBOR uint64) is opened and read
/// without trapping. The key is scripted at the CTAPHID level behind libfido2's I/O hooks: it answers INIT
/// and a getInfo it was given, nothing else.
@Suite(.serialized) struct HostileGetInfoTests {
    @Test func limitsBeyondIntAreClampedInsteadOfTrapping() throws {
        let huge = CBOR.unsigned(UInt64.max)
        ScriptedKey.getInfo = CBOR.map([
            (.int(1), .array([.text("FIDO_2_0")])), (.int(3), .bytes([UInt8](repeating: 0xAB, count: 16))),
            (.int(5), huge), (.int(7), huge), (.int(8), huge), (.int(11), huge), (.int(13), huge), (.int(14), huge),
            (.int(15), huge),
        ]).encode()
        FIDOLibrary.attachLogging(to: nil)
        let device = try Device.open(
            DeviceLocation(
                path: "scripted:getinfo", io: ScriptedKey.ioFunctions,
                manufacturer: "test", product: "scripted", isSoftware: true))
        defer { device.close() }
        #expect(device.info.maxMessageSize == Int.max)
        #expect(device.info.maxCredentialCountInList == Int.max)
        #expect(device.info.maxCredentialIDLength == Int.max)
        #expect(device.info.minPINLength == Int.max)
        #expect(device.info.firmwareVersion == Int.max)
    }
}

/// A key that answers CTAPHID_INIT and CTAPHID_CBOR getInfo with `getInfo` (status 0 first), one report queue.
private enum ScriptedKey {
    nonisolated(unsafe) static var getInfo: [UInt8] = []
    static let outbox = Mutex<[[UInt8]]>([])
    static let channel: [UInt8] = [0x0A, 0x0B, 0x0C, 0x0D]

    static var ioFunctions: fido_dev_io_t {
        fido_dev_io_t(
            open: { _ in UnsafeMutableRawPointer(bitPattern: 0x1) },
            close: { _ in },
            read: { _, buffer, length, _ in
                guard let buffer, let report = ScriptedKey.outbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() })
                else { return -1 }
                let count = min(length, report.count)
                _ = UnsafeMutableBufferPointer(start: buffer, count: count).update(fromContentsOf: report.prefix(count))
                return Int32(count)
            },
            write: { _, buffer, length in
                guard let buffer, length > 0 else { return -1 }
                var report = Array(UnsafeBufferPointer(start: buffer, count: length))
                if report.count == 65 { report.removeFirst() }  // the report id libfido2 puts first
                ScriptedKey.receive(report)
                return Int32(length)
            })
    }

    /// Every request fits one report here: INIT's nonce, and the one-byte getInfo command.
    static func receive(_ report: [UInt8]) {
        let command = report[4] & 0x7F
        let length = Int(report[5]) << 8 | Int(report[6])
        let payload = Array(report[7..<7 + length])
        switch command {
        case 0x06:  // INIT: nonce, our channel, protocol 2, version 1.0.0, capabilities CBOR | NMSG
            send(on: Array(report[0..<4]), command: 0x86, payload + channel + [2, 1, 0, 0, 0x0C])
        case 0x10 where payload == [0x04]:
            send(on: channel, command: 0x90, [0x00] + getInfo)
        default:
            send(on: channel, command: 0xBF, [0x01])  // ERROR: invalid command
        }
    }

    static func send(on cid: [UInt8], command: UInt8, _ payload: [UInt8]) {
        var reports = [cid + [command, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload.prefix(57)]
        var offset = min(payload.count, 57)
        var sequence: UInt8 = 0
        while offset < payload.count {
            reports.append(cid + [sequence] + payload[offset..<min(payload.count, offset + 59)])
            offset += 59
            sequence += 1
        }
        outbox.withLock { $0 += reports.map { $0 + [UInt8](repeating: 0, count: 64 - $0.count) } }
    }
}
