import Glibc
import Synchronization
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    case error, warn, info, debug, trace
    var rank: Int {
        switch self {
        case .error: 0
        case .warn: 1
        case .info: 2
        case .debug: 3
        case .trace: 4
        }
    }
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rank < b.rank }
}

/// The host log: one line per event, `time level [request] message`, appended to a size-bounded file
/// that is rotated (`host.log` → `host.log.1` … `.3`). A log that cannot be written never stops a
/// ceremony: a file that cannot be opened, or that refuses lines (a full disk), gets one warning on stderr and
/// logging carries on; once the file takes lines again, the first one says how many were lost.
///
/// Callers must never pass a PIN, PIN token, PRF output or private key; values that identify the caller
/// (origin, rp.id, request id) are what makes a failed sign-in debuggable. They may pass anything a page or
/// a key sent as it is: every line is escaped here (`LogText`), so none can forge another.
public final class HostLog: Sendable {
    public let path: String
    public let level: LogLevel
    let maxBytes: Int
    let keptFiles: Int
    private let state = Mutex<(file: Int32?, size: Int, warned: Bool, lost: Int)>((nil, 0, false, 0))

    public init(path: String, level: LogLevel, maxBytes: Int = 1 << 20, keptFiles: Int = 3) {
        self.path = path
        self.level = level
        self.maxBytes = maxBytes
        self.keptFiles = keptFiles
    }

    public func enabled(_ level: LogLevel) -> Bool { level <= self.level }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, request: String? = nil) {
        guard enabled(level) else { return }
        let id = (request ?? Self.servedRequestID.value).map { LogText.escaped($0) }
        // Escaped whole: messages quote what pages and keys sent, and a line is a line only if nothing in it
        // can break it (or reach the terminal of whoever reads the log).
        let line =
            "\(Self.timestamp()) \(level.rawValue.uppercased()) \(id.map { "[\($0)] " } ?? "")\(LogText.escaped(message()))\n"
        write(Data(line.utf8))
    }

    private static let servedRequestID = ThreadLocal<String>()

    /// Runs `body` with `request` as the id of every line this thread writes without one. Ceremonies run on the
    /// libfido2 thread, and the lines of the layers that know no request id (libfido2's trace, key selection)
    /// then carry the ceremony's, so `webauthn-bridge log --request` shows them too.
    public static func serving<T>(_ request: String, _ body: () -> T) -> T {
        servedRequestID.value = request
        defer { servedRequestID.value = nil }
        return body()
    }

    public func error(_ m: @autoclosure () -> String, request: String? = nil) { log(.error, m(), request: request) }
    public func warn(_ m: @autoclosure () -> String, request: String? = nil) { log(.warn, m(), request: request) }
    public func info(_ m: @autoclosure () -> String, request: String? = nil) { log(.info, m(), request: request) }
    public func debug(_ m: @autoclosure () -> String, request: String? = nil) { log(.debug, m(), request: request) }
    public func trace(_ m: @autoclosure () -> String, request: String? = nil) { log(.trace, m(), request: request) }

    private func write(_ data: Data) {
        state.withLock { s in
            if s.file == nil, !s.warned {
                do { (s.file, s.size) = try openForAppend() } catch {
                    s.warned = true
                    writeToStandardError(
                        "webauthn-bridge: cannot write log \(path): \(error); continuing without a log file\n")
                }
            }
            guard let file = s.file else { return }
            if s.size + data.count > maxBytes {
                close(file)
                rotate()
                s.file = try? openForAppend().0
                s.size = 0
            }
            guard let file = s.file else { return }
            if s.lost > 0 {
                let note = Data(
                    "\(Self.timestamp()) WARN \(s.lost) log line(s) could not be written before this one\n".utf8)
                if Self.writeAll(note, to: file) { (s.size, s.lost) = (s.size + note.count, 0) }
            }
            if s.lost == 0, Self.writeAll(data, to: file) {
                s.size += data.count
                return
            }
            let reason = String(cString: strerror(errno))
            s.lost += 1
            if !s.warned {
                s.warned = true
                writeToStandardError(
                    "webauthn-bridge: cannot write log \(path): \(reason); carrying on, lines are lost until it takes them again\n"
                )
            }
        }
    }

    private func openForAppend() throws -> (Int32, Int) {
        try FileManager.default.createDirectory(
            atPath: parentDirectory(of: path), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw LogFileError(reason: String(cString: strerror(errno))) }
        let size = lseek(file, 0, SEEK_END)
        return (file, Int(max(0, size)))
    }

    private struct LogFileError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// False when the file refused the bytes; the line is then lost, never the ceremony.
    private static func writeAll(_ data: Data, to file: Int32) -> Bool {
        data.withUnsafeBytes { BridgeHost.writeAll($0, to: file) }
    }

    private func rotate() {
        let fm = FileManager.default
        try? fm.removeItem(atPath: "\(path).\(keptFiles)")
        for index in stride(from: keptFiles - 1, through: 1, by: -1) {
            try? fm.moveItem(atPath: "\(path).\(index)", toPath: "\(path).\(index + 1)")
        }
        try? fm.moveItem(atPath: path, toPath: "\(path).1")
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var tm = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &tm)
        let ms = now.tv_nsec / 1_000_000
        func pad(_ v: Int32, _ w: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return
            "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1))-\(pad(tm.tm_mday))T\(pad(tm.tm_hour)):\(pad(tm.tm_min)):\(pad(tm.tm_sec)).\(pad(Int32(ms), 3))Z"
    }
}
