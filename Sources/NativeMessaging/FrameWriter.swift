import Glibc
import Synchronization

/// Writes host → browser frames: a uint32 length in native byte order, then the body.
///
/// Shared by every thread that answers the browser (status frames come from a device thread while replies
/// come from the request loop), so one lock spans header and body: frames never interleave on the stream.
///
/// A browser that went away makes `write` fail with EPIPE. That is an error value only if SIGPIPE is ignored,
/// which the host must do at start-up (`signal(SIGPIPE, SIG_IGN)`); otherwise the first such write kills the
/// process. The writer does not close the descriptor.
public final class FrameWriter: Sendable {
    public let fileDescriptor: Int32
    public let maxFrameSize: Int
    private let lock = Mutex(())

    public init(fileDescriptor: Int32, maxFrameSize: Int = FrameLimits.outbound) {
        self.fileDescriptor = fileDescriptor
        self.maxFrameSize = maxFrameSize
    }

    /// Writes one whole frame or throws. `outboundTooLarge` writes nothing, so the caller can still send a
    /// small error frame in its place; any other error leaves the stream unusable.
    public func write(_ payload: [UInt8]) throws(FrameError) {
        guard payload.count <= maxFrameSize, payload.count <= Int(UInt32.max) else {
            throw .outboundTooLarge(payload.count)
        }
        // One contiguous buffer: a frame below PIPE_BUF then reaches the pipe in a single write(2).
        var frame: [UInt8] = []
        frame.reserveCapacity(4 + payload.count)
        withUnsafeBytes(of: UInt32(payload.count)) { frame.append(contentsOf: $0) }
        frame.append(contentsOf: payload)

        try lock.withLock { _ in frame.withUnsafeBytes { writeFully($0) } }.get()
    }

    /// Loops over short writes (a pipe takes at most its free buffer space at once) and EINTR.
    /// (A `Result`, because the standard library's `withUnsafe…` closures only rethrow untyped errors.)
    private func writeFully(_ buffer: UnsafeRawBufferPointer) -> Result<Void, FrameError> {
        guard let base = buffer.baseAddress else { return .success(()) }
        var written = 0
        while written < buffer.count {
            let n = Glibc.write(fileDescriptor, base + written, buffer.count - written)
            if n >= 0 {
                written += n
            } else if errno != EINTR {
                return .failure(.writeFailed(errno: errno))
            }
        }
        return .success(())
    }
}
