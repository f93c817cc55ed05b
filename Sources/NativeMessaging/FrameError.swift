/// Why a frame could not be read or written. Every case except `outboundTooLarge` means the stream is no
/// longer usable: the host logs the description and exits non-zero.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// EOF after 1–3 bytes of a length header.
    case truncatedHeader
    /// EOF inside a frame body (also inside a discarded oversize body).
    case truncatedBody(expected: Int, received: Int)
    /// A length header so large it cannot be a real message: the stream is out of sync.
    case implausibleLength(Int)
    /// A reply larger than the browser accepts. Nothing was written; the stream is still in sync.
    case outboundTooLarge(Int)
    case writeFailed(errno: Int32)
    case readFailed(errno: Int32)

    public var description: String {
        switch self {
        case .truncatedHeader:
            "native-messaging stream ended inside a frame header"
        case .truncatedBody(let expected, let received):
            "native-messaging stream ended inside a frame body (\(received) of \(expected) bytes)"
        case .implausibleLength(let length):
            "native-messaging frame header claims \(length) bytes: stream out of sync"
        case .outboundTooLarge(let length):
            "reply of \(length) bytes exceeds the browser's \(FrameLimits.outbound)-byte limit"
        case .writeFailed(let code):
            "writing to the browser failed (errno \(code))"
        case .readFailed(let code):
            "reading from the browser failed (errno \(code))"
        }
    }
}
