import FuzzSupport
import Glibc
import NativeMessaging

/// The native-messaging frame reader against a reference model of the stream format.
///
/// Input: one byte choosing the reader's inbound limit, then the byte stream the "browser" writes. The reader
/// must return exactly the frames, oversize skips, end of stream or error that the model derives from the
/// bytes (uint32 length in native order, then the body), and never read past what it was given.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // Small limits so that the oversize path is reached with small inputs; 0 is a legal (if odd) configuration.
    let limits = [0, 1, 16, 64, 256, 1024, FrameLimits.defaultInbound]
    let limit = limits[Int(input.byte()) % limits.count]
    let stream = input.rest()
    guard stream.count <= Pipes.capacity else { return -1 }

    let fd = Pipes.readEnd(holding: stream)
    defer { close(fd) }
    var reader = FrameReader(fileDescriptor: fd, maxFrameSize: limit)
    for expected in FrameModel.outcomes(of: stream, limit: limit) {
        let actual: FrameModel.Outcome
        do { actual = .frame(try reader.next()) } catch { actual = .error(error) }
        precondition(actual == expected, "frame reader returned \(actual), the model says \(expected)")
    }
    return 0
}

/// What a correct reader returns for a stream, call by call, up to its first terminal outcome.
enum FrameModel {
    enum Outcome: Equatable {
        case frame(InboundFrame)
        case error(FrameError)
    }

    static func outcomes(of stream: [UInt8], limit: Int) -> [Outcome] {
        var out: [Outcome] = []
        var offset = 0
        while true {
            let left = stream.count - offset
            if left == 0 { return out + [.frame(.endOfStream)] }
            if left < 4 { return out + [.error(.truncatedHeader)] }
            let length = Int(stream[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            offset += 4
            if length > max(FrameLimits.implausible, limit) { return out + [.error(.implausibleLength(length))] }
            let available = stream.count - offset
            if available < length { return out + [.error(.truncatedBody(expected: length, received: available))] }
            out.append(
                .frame(length > limit ? .oversize(length: length) : .message(Array(stream[offset..<offset + length]))))
            offset += length
        }
    }
}
