import Foundation
import Glibc
import TestSupport

@testable import NativeMessaging

/// A pipe whose ends close themselves, so a failing test never leaves a peer blocked on the other end.
final class Pipe: @unchecked Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    private let closed = Locked<Set<Int32>>([])

    init(bufferSize: Int32? = nil) {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "pipe() failed")
        readEnd = fds[0]
        writeEnd = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // no child process of another test inherits it
        if let bufferSize {
            // F_SETPIPE_SZ (1031) rounds up to a page: small enough to force short writes.
            _ = fcntl(writeEnd, 1031, bufferSize)
        }
    }

    func closeRead() { close(once: readEnd) }
    func closeWrite() { close(once: writeEnd) }

    private func close(once fd: Int32) {
        let first = closed.with { $0.insert(fd).inserted }
        if first { _ = Glibc.close(fd) }
    }

    /// Writes raw bytes (headers crafted by hand), looping over short writes.
    func writeRaw(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                write(writeEnd, $0.baseAddress?.advanced(by: written), bytes.count - written)
            }
            precondition(n > 0, "raw write failed")
            written += n
        }
    }

    /// Reads until EOF (the writer must close its end).
    func readAll() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n <= 0 { return result }
            result += chunk[0..<n]
        }
    }

    deinit {
        closeRead()
        closeWrite()
    }
}

/// A real thread (blocking pipe I/O must not sit on the cooperative pool) with a bounded join.
final class TestThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        Thread {
            body()
            done.signal()
        }.start()
    }

    /// False when the thread did not finish within `seconds`: the test fails instead of hanging.
    func join(seconds: Double = 20) -> Bool {
        done.wait(timeout: .now() + seconds) == .success
    }
}

/// Header bytes as the browser writes them: uint32 in native byte order.
func nativeHeader(_ length: UInt32) -> [UInt8] {
    withUnsafeBytes(of: length) { Array($0) }
}

let ignoreSIGPIPE: Void = {
    signal(SIGPIPE, SIG_IGN)
}()

/// SIGUSR1 with a no-op handler and without SA_RESTART: a blocked read(2)/write(2) in the signalled thread
/// returns EINTR (or a short count), which the codec must retry.
let interruptingSignal: Int32 = {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGUSR1, &action, nil)
    return SIGUSR1
}()

/// Compares frames without dumping megabytes into the test log when they differ.
func summary(_ frame: InboundFrame?) -> String {
    switch frame {
    case .message(let body)?:
        "message of \(body.count) bytes, hash \(body.reduce(UInt64(1_469_598_103_934_665_603)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })"
    case .oversize(let length)?: "oversize(\(length))"
    case .endOfStream?: "endOfStream"
    case nil: "nothing"
    }
}
