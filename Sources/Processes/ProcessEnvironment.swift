import Glibc

/// The process environment as a dictionary (Glibc's `environ`), so Prompts needs no Foundation.
public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let pair = String(cString: pointer)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        entry += 1
    }
    return result
}

/// A close-on-exec pipe. (`pipe2` is not exported by Swift's Glibc module; the window between `pipe` and
/// `fcntl` only matters for a concurrent fork elsewhere, and our own spawns close every other descriptor.)
public func makePipe(nonBlocking: Bool = false) -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }
    return (fds[0], fds[1])
}
