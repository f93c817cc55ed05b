import Glibc

/// A directory of this fuzzing process for the targets that parse files (SoftToken's state, journal and
/// counter files). In /dev/shm when it exists, so a million iterations do not write to a disk.
public final class ScratchDirectory: @unchecked Sendable {
    public let path: String

    public init(name: String) {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        path = "\(base)/webauthn-bridge-\(name)-\(getpid())"
        mkdir(path, 0o700)
        removeAtExit(path)
    }

    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Removes every file in the directory (not recursive: targets only make plain files).
    public func empty() {
        guard let dir = opendir(path) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(file(name)) }
        }
    }

    /// Writes `bytes` to `name` (replacing it); an empty array still makes an empty file.
    public func write(_ bytes: [UInt8], to name: String) {
        Self.writeFile(bytes, to: file(name))
    }

    /// Writes `bytes` to `path` (replacing it), mode 0644.
    public static func writeFile(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { fatalError("cannot write \(path): errno \(errno)") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.write(fd, $0.baseAddress?.advanced(by: written), bytes.count - written)
            }
            guard n > 0 else { fatalError("write to \(path) failed: errno \(errno)") }
            written += n
        }
    }

    /// The whole file, or nil when it does not exist.
    public func read(_ name: String) -> [UInt8]? {
        let fd = open(file(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }
}

/// Directories to remove when the fuzzer exits (libFuzzer ends with exit(), which runs atexit handlers).
private nonisolated(unsafe) var directoriesToRemove: [String] = []

private func removeAtExit(_ path: String) {
    if directoriesToRemove.isEmpty {
        atexit {
            for path in directoriesToRemove {
                ScratchDirectory.removeTree(path)
            }
        }
    }
    directoriesToRemove.append(path)
}

extension ScratchDirectory {
    static func removeTree(_ path: String) {
        guard let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink("\(path)/\(name)") }
        }
        closedir(dir)
        rmdir(path)
    }
}
