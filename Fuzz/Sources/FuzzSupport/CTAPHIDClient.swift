import CFIDO2

@testable import SoftToken

/// A CTAPHID host talking to a SoftToken through exactly the I/O hooks libfido2 uses (`SoftTokenDevice`), without
/// libfido2's own checks in between: the fuzz targets must be able to send what libfido2 never would.
public final class CTAPHIDClient {
    public static let reportSize = 64
    public static let broadcast: UInt32 = 0xFFFF_FFFF

    private let path: String
    private let handle: UnsafeMutableRawPointer

    /// Opens one connection to `token` (as one hidraw descriptor would be); closed by `close()`.
    public init(token: SoftToken) {
        let path = SoftTokenDevice.attach(token)
        guard let handle = path.withCString({ SoftTokenDevice.open($0) }) else {
            fatalError("cannot open the SoftToken")
        }
        self.path = path
        self.handle = handle
    }

    public func close() {
        SoftTokenDevice.close(handle)
        SoftTokenDevice.detach(path: path)
    }

    /// Writes one report (any length: the token decides what it accepts). False when the token refused it.
    @discardableResult
    public func write(_ report: [UInt8]) -> Bool {
        guard !report.isEmpty else { return true }
        return report.withUnsafeBufferPointer { SoftTokenDevice.write(handle, $0.baseAddress, $0.count) }
            == report.count
    }

    /// Every report the token has queued, without waiting (the token answers inside `write`).
    public func drain(limit: Int = 1024) -> [[UInt8]] {
        var reports: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: Self.reportSize)
        while reports.count < limit {
            let n = buffer.withUnsafeMutableBufferPointer { SoftTokenDevice.read(handle, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            reports.append(Array(buffer[0..<Int(n)]))
        }
        return reports
    }

    /// CTAPHID_INIT on the broadcast channel; the channel the token allocated.
    public func allocateChannel() -> UInt32? {
        let nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        for report in Self.frames(channel: Self.broadcast, command: 0x06, payload: nonce) { write(report) }
        guard let reply = Self.message(from: drain(), channel: Self.broadcast), reply.command == 0x06,
            reply.payload.count >= 12, Array(reply.payload.prefix(8)) == nonce
        else { return nil }
        return reply.payload[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Sends one CTAPHID_CBOR message and returns the response payload (status byte first), nil when the token
    /// answered with anything but one CBOR response.
    public func cbor(_ message: [UInt8], channel: UInt32) -> [UInt8]? {
        for report in Self.frames(channel: channel, command: 0x10, payload: message) { write(report) }
        guard let reply = Self.message(from: drain(), channel: channel), reply.command == 0x10 else { return nil }
        return reply.payload
    }

    /// Splits a message into 64-byte reports (CTAP 2.1 §11.2.4): the format is the same in both directions, so
    /// this is SoftToken's own framing (which libfido2 reads in every integration test).
    public static func frames(channel: UInt32, command: UInt8, payload: [UInt8]) -> [[UInt8]] {
        CTAPHID.frames(channel: channel, command: command, payload: payload)
    }

    /// Reassembles the first complete message on `channel` from the token's reports, skipping keepalives.
    public static func message(from reports: [[UInt8]], channel: UInt32) -> (command: UInt8, payload: [UInt8])? {
        var current: (command: UInt8, length: Int, payload: [UInt8])?
        for report in reports where report.count >= 7 {
            let cid = report[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
            guard cid == channel else { continue }
            if report[4] & 0x80 != 0 {
                let command = report[4] & 0x7F
                if command == 0x3B { continue }  // KEEPALIVE
                let length = Int(report[5]) << 8 | Int(report[6])
                current = (command, length, Array(report[7...].prefix(length)))
            } else if var partial = current {
                partial.payload += report[5...].prefix(partial.length - partial.payload.count)
                current = partial
            }
            if let done = current, done.payload.count == done.length { return (done.command, done.payload) }
        }
        return nil
    }
}
