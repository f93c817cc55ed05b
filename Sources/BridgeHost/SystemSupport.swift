import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Small stand-ins for full-Foundation conveniences (NSString paths, NSHomeDirectory, FileHandle.standardError):
// the host links only FoundationEssentials, which keeps ICU and its start-up cost out of every launch.

/// The user's home: $HOME, else the password database's entry.
public func homeDirectory(_ environment: [String: String]) -> String {
    environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
}

/// What NSString.deletingLastPathComponent gives for the paths used here: "/a/b" for "/a/b/c", "/" for "/c",
/// "" for "c".
public func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path ("c" for "/a/b/c").
public func fileName(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// The running binary's path with every symlink resolved (/usr/bin/webauthn-bridge links into libexec).
public func runningExecutablePath() -> String? {
    guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Writes `text` to stderr unbuffered (the browser collects the host's stderr).
public func writeToStandardError(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { writeAll($0, to: STDERR_FILENO) }
}

/// Writes all of `bytes`, retrying after signals; false when the descriptor refused them.
func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = write(fd, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}
