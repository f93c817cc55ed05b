import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The demo's temporary directory, `$TMPDIR/webauthn-bridge-demo-XXXXXX`, and those earlier demos left behind.
/// Each holds an `owner` file naming the demo that made it (`ProcessIdentity`). A demo killed with SIGKILL (or
/// crashed) cannot remove its own, so each demo, before it makes its directory, removes those whose owner no
/// longer runs.
enum DemoDirectory {
    static let prefix = "webauthn-bridge-demo-"
    static let ownerFile = "owner"

    /// `$TMPDIR`, else /tmp.
    static func base() -> String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new directory in `base` (mode 0700, mkdtemp's), with this process recorded in it as its owner.
    static func create(in base: String) throws(DemoError) -> String {
        var template = Array("\(base)/\(prefix)XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw DemoError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let me = ProcessIdentity.current() else { return path }  // no /proc: a directory nobody sweeps
        do {
            try writeFile("\(path)/\(ownerFile)", me.recorded, mode: 0o600)
        } catch {
            rmdir(path)
            throw error
        }
        return path
    }

    /// A directory an earlier demo made and left, and the demo that made it.
    struct Stale: Equatable {
        let path: String
        let owner: ProcessIdentity
    }

    /// The directories in `base` that a demo made and left: a directory (not a link) named like the demo's own
    /// (the prefix and mkdtemp's six letters or digits), owned by this user, holding an owner file (a regular
    /// file of this user) that names a process no longer running. One without an owner file is kept: it may
    /// belong to a demo that has not written it yet, or to an older version that wrote none.
    static func stale(in base: String) -> [Stale] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        return names.sorted().compactMap { name in
            guard isDemoName(name) else { return nil }
            let path = "\(base)/\(name)"
            guard ownedByMe(path, type: S_IFDIR), ownedByMe("\(path)/\(ownerFile)", type: S_IFREG),
                let text = readFile("\(path)/\(ownerFile)", limit: 4096),
                let owner = ProcessIdentity(recorded: text), !owner.isRunning
            else { return nil }
            return Stale(path: path, owner: owner)
        }
    }

    /// Removes what `stale` finds, saying what it removed and what it could not; the paths removed.
    @discardableResult
    static func removeStale(in base: String, say: (String) -> Void) -> [String] {
        stale(in: base).compactMap { found in
            do {
                try FileManager.default.removeItem(atPath: found.path)
            } catch {
                say("Could not remove \(found.path), left by an earlier demo (pid \(found.owner.pid)): \(error)")
                return nil
            }
            say("Removed \(found.path), left by an earlier demo (pid \(found.owner.pid)) that no longer runs.")
            return found.path
        }
    }

    static func isDemoName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.dropFirst(prefix.count)
        return suffix.count == 6 && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// True when `path` itself (a link is not followed) is of `type` and belongs to this process's user.
    static func ownedByMe(_ path: String, type: mode_t) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == type && info.st_uid == geteuid()
    }
}
