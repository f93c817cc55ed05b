#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

// Small stand-ins for full-Foundation conveniences (NSString paths, NSHomeDirectory, FileHandle.standardError):
// the host links only FoundationEssentials, which keeps ICU and its start-up cost out of every launch.

/// The user's home: $HOME, else the password database's entry.
func homeDirectory(_ environment: [String: String]) -> String {
    environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
}

/// What NSString.deletingLastPathComponent gives for the paths used here: "/a/b" for "/a/b/c", "/" for "/c",
/// "" for "c".
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path ("c" for "/a/b/c").
func fileName(of path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// Writes `text` to stderr unbuffered (the browser collects the host's stderr).
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
