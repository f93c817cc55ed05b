import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Chromium extension ids that the installation holding this binary ships: install.sh --system (and the .deb
/// it stages) writes the id of the CRX it installs by policy to PREFIX/share/webauthn-bridge/chromium-id.txt, beside
/// the host at PREFIX/libexec/webauthn-bridge/. Whoever wrote that file could as well have replaced the host, so
/// its ids are trusted like the built-in ones (docs/security.md, "Which extensions the host serves").
///
/// The file is found from the running executable's real path only: never from the environment, the command line or
/// anything a page can reach. A file that is missing, too large, not a regular file, or writable by someone who
/// could not replace the binary gives no id; a line that is not an id is left out. Both with a reason to log.
public enum InstalledExtensionIDs {
    /// A few ids at most (33 bytes a line): anything larger is not a file install.sh wrote.
    static let maximumFileBytes = 4096
    static let fileName = "chromium-id.txt"
    private static let product = "webauthn-bridge"

    /// What reading the file found: the ids to trust, and one sentence for each thing left out.
    struct Reading: Equatable {
        var ids: [String] = []
        var ignored: [String] = []
    }

    /// The ids the installation of the running host ships; what it leaves out goes to `log`. Read only when the
    /// caller is not served anyway, so most launches never look.
    public static func ofRunningHost(log: HostLog) -> [String] {
        guard let executable = runningExecutablePath() else {
            log.warn("cannot resolve /proc/self/exe: installed extension ids not read")
            return []
        }
        guard let file = idFile(forExecutable: executable) else {
            log.debug("\(executable) is not in an install's libexec/\(product)/: no installed extension ids")
            return []
        }
        var owner = stat()
        guard stat("/proc/self/exe", &owner) == 0 else {
            log.warn("cannot stat /proc/self/exe (errno \(errno)): installed extension ids not read")
            return []
        }
        let reading = read(file: file, trustedOwner: owner.st_uid)
        for reason in reading.ignored { log.warn("installed extension ids: \(reason)") }
        if !reading.ids.isEmpty {
            log.debug("installed extension ids from \(file): \(reading.ids.joined(separator: ", "))")
        }
        return reading.ids
    }

    /// PREFIX/share/webauthn-bridge/chromium-id.txt for a host at PREFIX/libexec/webauthn-bridge/<name>; nil for a
    /// binary anywhere else (a build directory, a copy), which has no installation to take ids from.
    static func idFile(forExecutable path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard path.hasPrefix("/"), parts.count >= 3, parts[parts.count - 2] == product,
            parts[parts.count - 3] == "libexec"
        else { return nil }
        let prefix = parts.dropLast(3).map { "/" + $0 }.joined()
        return "\(prefix)/share/\(product)/\(fileName)"
    }

    /// The ids in `file`, which must be a regular file of at most `maximumFileBytes`, owned by root or by
    /// `trustedOwner` (the binary's owner) and writable by no one else. Its final component is not followed if
    /// it is a symlink, and a FIFO there cannot block the open.
    static func read(file: String, trustedOwner: uid_t) -> Reading {
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let error = errno
            // No file is the normal case for a per-user install, which installs no CRX.
            return error == ENOENT ? Reading() : Reading(ignored: ["cannot open \(file) (errno \(error))"])
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return Reading(ignored: ["cannot stat \(file) (errno \(errno))"]) }
        if let problem = untrusted(info, trustedOwner: trustedOwner) {
            return Reading(ignored: ["\(file) \(problem): not read"])
        }
        let tooLarge = Reading(ignored: ["\(file) is larger than \(maximumFileBytes) bytes: not read"])
        guard info.st_size <= maximumFileBytes else { return tooLarge }
        switch readBounded(fd) {
        case .bytes(let bytes): return parse(bytes, file: file)
        case .tooLarge: return tooLarge
        case .failed(let error): return Reading(ignored: ["cannot read \(file) (errno \(error))"])
        }
    }

    /// One id a line; surrounding blanks and empty lines are allowed, anything else is named and left out.
    static func parse(_ bytes: [UInt8], file: String) -> Reading {
        var reading = Reading()
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop(while: isBlank).reversed().drop(while: isBlank).reversed()
            if trimmed.isEmpty { continue }
            if isChromiumID(trimmed) {
                reading.ids.append(String(decoding: trimmed, as: UTF8.self))
            } else {
                let shown = String(decoding: trimmed.prefix(40), as: UTF8.self)
                reading.ignored.append(
                    "\(file) line \(index + 1) is not a Chromium extension id (32 letters a-p): \"\(shown)\"")
            }
        }
        return reading
    }

    /// A Chromium id: the first 128 bits of the key's SHA-256, one letter a–p per 4 bits.
    static func isChromiumID<Bytes: Collection<UInt8>>(_ text: Bytes) -> Bool {
        text.count == 32 && text.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "p")).contains($0) }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// Why a file with this status is no more trusted than the binary is; nil when it is not.
    private static func untrusted(_ info: stat, trustedOwner: uid_t) -> String? {
        if info.st_mode & S_IFMT != S_IFREG { return "is not a regular file" }
        if info.st_uid != 0 && info.st_uid != trustedOwner {
            return "belongs to uid \(info.st_uid), neither root nor the host binary's owner (uid \(trustedOwner))"
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "is writable by its group or by others" }
        return nil
    }

    private enum Content {
        case bytes([UInt8])
        case tooLarge
        case failed(Int32)
    }

    /// At most `maximumFileBytes`: one byte more means the file grew past the bound after fstat.
    private static func readBounded(_ fd: Int32) -> Content {
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Glibc.read(fd, $0.baseAddress?.advanced(by: filled), $0.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failed(errno) }
            if count == 0 { break }
            filled += count
        }
        return filled > maximumFileBytes ? .tooLarge : .bytes(Array(bytes.prefix(filled)))
    }
}
