import CFIDO2
import FuzzSupport
import SoftToken

/// Every report libfido2 and a SoftToken exchange, recorded through a wrapper around the token's I/O hooks.
/// libfido2's hooks are C functions without context, so the recording is global (one thread records).
enum Recorder {
    nonisolated(unsafe) static var written: [[UInt8]] = []
    nonisolated(unsafe) static var read: [[UInt8]] = []

    static let io = fido_dev_io_t(
        open: { path in SoftTokenDevice.open(path) },
        close: { handle in SoftTokenDevice.close(handle) },
        read: { handle, buffer, length, ms in
            let n = SoftTokenDevice.read(handle, buffer, length, ms)
            if n > 0, let buffer { Recorder.read.append(Array(UnsafeBufferPointer(start: buffer, count: Int(n)))) }
            return n
        },
        write: { handle, buffer, length in
            if let buffer { Recorder.written.append(Array(UnsafeBufferPointer(start: buffer, count: length))) }
            return SoftTokenDevice.write(handle, buffer, length)
        })

    /// The reports recorded since the last call, host → token and token → host, without libfido2's report ID.
    static func take() -> (sent: [[UInt8]], received: [[UInt8]]) {
        defer {
            written = []
            read = []
        }
        let sent = written.map { $0.count == CTAPHIDClient.reportSize + 1 ? Array($0.dropFirst()) : $0 }
        return (sent, read)
    }

    /// The complete CTAPHID_CBOR messages in a report stream, in order (keepalives and other commands skipped).
    static func cborMessages(_ reports: [[UInt8]]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var current: (length: Int, payload: [UInt8])?
        for report in reports where report.count >= 7 {
            if report[4] & 0x80 != 0 {
                current = nil
                guard report[4] & 0x7F == 0x10 else { continue }
                let length = Int(report[5]) << 8 | Int(report[6])
                current = (length, Array(report[7...].prefix(length)))
            } else if var partial = current {
                partial.payload += report[5...].prefix(partial.length - partial.payload.count)
                current = partial
            }
            if let done = current, done.payload.count == done.length {
                messages.append(done.payload)
                current = nil
            }
        }
        return messages
    }
}
