#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads and atomically replaces a SoftToken state file.
///
/// A write goes to `FILE.tmp` in the same directory (so `rename` stays on one file system), is fsynced, renamed
/// over FILE, and the directory is fsynced so the rename itself is durable. A kill -9 at any point therefore
/// leaves either the old or the new complete file; a leftover `FILE.tmp` is never read and is overwritten by the
/// next save. Not safe for two processes writing the same token at once (last writer wins).
enum StateFile {
    static func temporaryPath(for path: String) -> String { path + ".tmp" }

    static func load(_ path: String) throws(SoftTokenError) -> TokenState {
        let bytes = try readAll(path)
        let state: TokenState
        do {
            state = try JSONDecoder().decode(TokenState.self, from: Data(bytes))
        } catch {
            throw .corruptState(path: path, reason: "\(error)")
        }
        guard state.format == TokenState.formatName else { throw .corruptState(path: path, reason: "not a SoftToken state file") }
        guard state.version == TokenState.formatVersion else { throw .unsupportedVersion(path: path, version: state.version) }
        try state.configuration.validate()
        guard state.wrappingKey.count == 32 else { throw .corruptState(path: path, reason: "wrapping key is not 32 bytes") }
        return state
    }

    static func save(_ state: TokenState, to path: String) throws(SoftTokenError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(state) } catch { throw .cannotWrite(path: path, step: "encode", errno: EINVAL) }
        try writeAtomically(Array(data), to: path)
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SoftTokenError) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, step: "open \(temporary)", errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                throw .cannotWrite(path: path, step: "write", errno: code)
            }
            written += n
        }
        // O_CREAT's mode only applies to new files; a leftover temporary file may have looser permissions.
        fchmod(fd, 0o600)
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            throw .cannotWrite(path: path, step: "fsync", errno: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw .cannotWrite(path: path, step: "rename", errno: errno) }
        let directory = directoryName(of: path)
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    static func readAll(_ path: String) throws(SoftTokenError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: path, errno: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: path, errno: errno)
            }
            if n == 0 { break }
            result += buffer[0..<n]
        }
        return result
    }

    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
