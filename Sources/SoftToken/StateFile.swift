#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads and atomically replaces a SoftToken state file (written by `StateStore`, encoded by `StateEncoder`);
/// loading also applies the journal and counter file that belong to it.
///
/// A durable write goes to `FILE.tmp` in the same directory (so `rename` stays on one file system), is fsynced,
/// renamed over FILE, and the directory is fsynced so the rename itself is durable. A kill -9 at any point
/// therefore leaves either the old or the new complete file; a leftover `FILE.tmp` is never read and is
/// overwritten by the next save. Not safe for two processes writing the same token at once (last writer wins).
enum StateFile {
    static func temporaryPath(for path: String) -> String { path + ".tmp" }

    static func load(_ path: String) throws(SoftTokenError) -> TokenState {
        try loadWithJournal(path).state
    }

    /// The state as last saved: the state file, then its journal's changes, then its newer counters. Also the size
    /// of the journal that applied, which the store appends to.
    static func loadWithJournal(_ path: String) throws(SoftTokenError) -> (state: TokenState, journalSize: Int?) {
        let bytes = try readAll(path)
        var state: TokenState
        do {
            state = try JSONDecoder().decode(TokenState.self, from: Data(bytes))
        } catch {
            throw .corruptState(path: path, reason: "\(error)")
        }
        guard state.format == TokenState.formatName else {
            throw .corruptState(path: path, reason: "not a SoftToken state file")
        }
        guard state.version == TokenState.formatVersion else {
            throw .unsupportedVersion(path: path, version: state.version)
        }
        try state.configuration.validate()
        guard state.wrappingKey.count == 32 else {
            throw .corruptState(path: path, reason: "wrapping key is not 32 bytes")
        }
        let journalSize = try StateJournal.replay(onto: &state, statePath: path)
        applyCounterFile(to: &state, statePath: path)
        return (state, journalSize)
    }

    /// Takes the newer signature counters from `FILE.counters` when it belongs to this state file; an absent,
    /// older or torn counter file is expected after a power loss (see `CounterFile`) and leaves the file's own.
    static func applyCounterFile(to state: inout TokenState, statePath: String) {
        guard let generation = state.counterGeneration,
            let bytes = try? readAll(CounterFile.path(for: statePath)),
            let counts = CounterFile.decode(bytes, generation: generation, atMost: state.credentials.count)
        else { return }
        for (index, count) in counts.enumerated() where count > state.credentials[index].signCount {
            state.credentials[index].signCount = count
        }
    }

    /// `durable: false` skips both fsyncs: the replace is still atomic against kill -9, but after a power loss
    /// the file may be old, empty or missing (only acceptable for `CounterFile`, which tolerates that).
    static func writeAtomically(_ bytes: [UInt8], to path: String, durable: Bool) throws(SoftTokenError) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, step: "open \(temporary)", errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress?.advanced(by: written), bytes.count - written) }
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
        guard !durable || fsync(fd) == 0 else {
            let code = errno
            close(fd)
            throw .cannotWrite(path: path, step: "fsync", errno: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw .cannotWrite(path: path, step: "rename", errno: errno) }
        guard durable else { return }
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
