import Glibc

/// Descriptors for the parsers that read from a file descriptor (the frame reader, the Assuan reader).
public enum Pipes {
    /// A pipe's read end that yields `bytes` and then end-of-file. The bytes must fit in the pipe's buffer
    /// (64 KiB on Linux), so no second thread is needed to feed it; targets cap their input below that.
    public static func readEnd(holding bytes: [UInt8]) -> Int32 {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { fatalError("pipe() failed: errno \(errno)") }
        precondition(bytes.count <= capacity, "input larger than the pipe's buffer")
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                write(ends[1], $0.baseAddress?.advanced(by: written), bytes.count - written)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { fatalError("write() to a pipe failed: errno \(errno)") }
            written += n
        }
        close(ends[1])
        return ends[0]
    }

    /// Bytes a pipe holds without a reader (Linux default).
    public static let capacity = 65536

    /// /dev/null for writing: where commands to a simulated peer go.
    public static func sink() -> Int32 {
        let fd = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { fatalError("cannot open /dev/null: errno \(errno)") }
        return fd
    }
}
