import Glibc
import SoftToken
import Threading

/// Serves a SoftToken's CTAPHID on stdin/stdout, 64-byte reports each way, so a CTAP client other than
/// libfido2 (python-fido2's CtapHidDevice over a pipe) can drive the same token file as an independent oracle.
/// Reports go through the same I/O hooks libfido2 uses. Development and tests only: it ends when stdin closes.
public enum CTAPHIDPipe {
    public static let reportSize = 64

    public static func serve(tokenFile: String) throws {
        let token = try SoftToken(stateFile: tokenFile)
        let path = SoftTokenDevice.attach(token)
        defer { SoftTokenDevice.detach(path: path) }
        guard let handle = path.withCString({ SoftTokenDevice.open($0) }) else {
            throw Refusal(description: "cannot open the SoftToken \(tokenFile)")
        }
        defer { SoftTokenDevice.close(handle) }
        let connection = UnsafeSendableHandle(pointer: handle)
        startDetachedThread(name: "ctaphid-in") {
            var report = [UInt8](repeating: 0, count: reportSize)
            while readFully(&report) {
                _ = report.withUnsafeBufferPointer {
                    SoftTokenDevice.write(connection.pointer, $0.baseAddress, reportSize)
                }
            }
            exit(0)
        }
        var report = [UInt8](repeating: 0, count: reportSize)
        while true {
            let count = report.withUnsafeMutableBufferPointer {
                SoftTokenDevice.read(connection.pointer, $0.baseAddress, reportSize, 1000)
            }
            guard count > 0 else { continue }
            guard writeFully(report) else { return }
        }
    }

    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads one whole report from stdin; false at end of input.
    private static func readFully(_ report: inout [UInt8]) -> Bool {
        var filled = 0
        while filled < reportSize {
            let n = report.withUnsafeMutableBufferPointer {
                read(
                    STDIN_FILENO, UnsafeMutableBufferPointer(rebasing: $0[filled...]).baseAddress,
                    reportSize - filled)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            filled += n
        }
        return true
    }

    /// Writes one whole report to stdout; false once the reader has gone.
    private static func writeFully(_ report: [UInt8]) -> Bool {
        var written = 0
        while written < reportSize {
            let n = report.withUnsafeBufferPointer {
                write(
                    STDOUT_FILENO, UnsafeBufferPointer(rebasing: $0[written...]).baseAddress,
                    reportSize - written)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }
}

/// The connection handle, shared by the reading and the writing thread: the token's lock serialises its use.
private struct UnsafeSendableHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}
