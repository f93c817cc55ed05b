import Glibc

/// One result of `FrameReader.next()`.
public enum InboundFrame: Equatable, Sendable {
    /// A complete frame body (not validated: the caller parses the JSON).
    case message([UInt8])
    /// A frame above the reader's limit. Its body was read and discarded, so the stream is still in sync and
    /// the host can answer with an error frame and keep serving.
    case oversize(length: Int)
    /// The browser closed the stream exactly at a frame boundary: the normal way a host is told to exit.
    case endOfStream
}

/// Reads browser → host frames: a uint32 length in native byte order, then that many bytes.
///
/// The reader keeps no buffer between calls, so it never reads past a frame boundary. It does not close the
/// descriptor.
public struct FrameReader {
    public let fileDescriptor: Int32
    public let maxFrameSize: Int
    /// Lengths above this are `implausibleLength`; never below `maxFrameSize`.
    let implausibleLength: Int

    public init(fileDescriptor: Int32, maxFrameSize: Int = FrameLimits.defaultInbound) {
        self.fileDescriptor = fileDescriptor
        self.maxFrameSize = max(0, maxFrameSize)
        self.implausibleLength = max(FrameLimits.implausible, maxFrameSize)
    }

    /// Blocks until one frame, the end of the stream, or an error.
    public mutating func next() throws(FrameError) -> InboundFrame {
        var header: UInt32 = 0
        let headerBytes = try withUnsafeMutableBytes(of: &header) { readFully(into: $0) }.get()
        if headerBytes == 0 { return .endOfStream }
        guard headerBytes == 4 else { throw .truncatedHeader }

        let length = Int(header)  // native byte order, as both browsers write it
        if length > implausibleLength { throw .implausibleLength(length) }
        if length > maxFrameSize {
            try discard(length)
            return .oversize(length: length)
        }
        // Read into uninitialized storage: zeroing a large frame first would touch every byte twice.
        var outcome: Result<Int, FrameError> = .success(0)
        let body = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            outcome = readFully(into: UnsafeMutableRawBufferPointer(buffer))
            initialized = (try? outcome.get()) ?? 0
        }
        let received = try outcome.get()
        guard received == length else { throw .truncatedBody(expected: length, received: received) }
        return .message(body)
    }

    /// Skips an oversize body through a small fixed buffer, so a large frame costs time, not memory.
    private func discard(_ length: Int) throws(FrameError) {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        var remaining = length
        while remaining > 0 {
            let chunk = min(remaining, scratch.count)
            let got = try scratch.withUnsafeMutableBytes {
                readFully(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<chunk]))
            }.get()
            remaining -= got
            if got < chunk { throw .truncatedBody(expected: length, received: length - remaining) }
        }
    }

    /// Fills `buffer` unless EOF comes first; returns the number of bytes read. Retries short reads and EINTR.
    /// (A `Result`, because the standard library's `withUnsafe…` closures only rethrow untyped errors.)
    private func readFully(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, FrameError> {
        guard let base = buffer.baseAddress else { return .success(0) }
        var filled = 0
        while filled < buffer.count {
            let n = read(fileDescriptor, base + filled, buffer.count - filled)
            if n > 0 {
                filled += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                return .failure(.readFailed(errno: errno))
            }
        }
        return .success(filled)
    }
}
