import BridgeHost
import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the host log as one stream across its rotated files (oldest first), for `webauthn-bridge log`.
public struct LogReader {
    public let path: String
    public let keptFiles: Int

    public init(path: String, keptFiles: Int = 3) {
        self.path = path
        self.keptFiles = keptFiles
    }

    /// Every line still on disk, oldest first.
    public func lines() -> [String] { contents().lines }

    /// Where following the live file starts: which file it is and the offset just past its last whole line.
    public struct FollowPoint: Equatable, Sendable {
        var fileIdentity: UInt64
        var offset: UInt64
    }

    /// Every whole line still on disk, oldest first, and where to follow on from. Following starts where this
    /// read stopped rather than at the file's size looked up later, because a line written between the two
    /// would be neither printed nor followed.
    public func contents() -> (lines: [String], followPoint: FollowPoint) {
        let identity = fileIdentity()
        let rotated = stride(from: keptFiles, through: 1, by: -1).flatMap { Self.wholeLines(of: "\(path).\($0)").lines }
        let live = Self.wholeLines(of: path)
        return (rotated + live.lines, FollowPoint(fileIdentity: identity, offset: live.byteCount))
    }

    private static func wholeLines(of file: String) -> (lines: [String], byteCount: UInt64) {
        guard let data = FileManager.default.contents(atPath: file),
            let lastNewline = data.lastIndex(of: UInt8(ascii: "\n"))
        else { return ([], 0) }
        let whole = data[data.startIndex...lastNewline]
        let text = String(decoding: whole, as: UTF8.self)
        return (text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init), UInt64(whole.count))
    }

    /// Whether a line belongs to `request` (lines carry `[id]` after the level).
    public static func line(_ line: String, isFor request: String) -> Bool {
        line.contains("[\(request)]")
    }

    /// Calls `emit` with each line appended after `start` (by default, the end of the file now), following the
    /// file across rotations; runs until `shouldStop` says so.
    public func follow(
        from start: FollowPoint? = nil, pollInterval: TimeInterval = 0.25,
        shouldStop: () -> Bool = { false }, emit: (String) -> Void
    ) {
        var point = start ?? FollowPoint(fileIdentity: fileIdentity(), offset: fileSize())
        var pending = Data()
        while !shouldStop() {
            let now = status()
            let identity = now.map { UInt64($0.st_ino) } ?? 0
            let size = now.map { UInt64($0.st_size) } ?? 0
            if identity != point.fileIdentity || size < point.offset {  // rotated or truncated: start the new file
                point = FollowPoint(fileIdentity: identity, offset: 0)
                pending.removeAll()
            }
            if size > point.offset, let data = Self.bytes(of: path, from: point.offset) {
                point.offset += UInt64(data.count)
                pending.append(data)
                // Bytes, not characters, are split: a read can end inside a multi-byte character.
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    emit(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[pending.index(after: newline)...])
                }
            }
            usleep(UInt32(max(0, pollInterval) * 1_000_000))
        }
    }

    func fileSize() -> UInt64 { status().map { UInt64($0.st_size) } ?? 0 }

    func fileIdentity() -> UInt64 { status().map { UInt64($0.st_ino) } ?? 0 }

    private func status() -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// The file's bytes from `offset` to its end; nil when it cannot be opened.
    private static func bytes(of path: String, from offset: UInt64) -> Data? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        guard lseek(file, off_t(offset), SEEK_SET) >= 0 else { return Data() }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: chunk[..<count])
        }
    }
}
