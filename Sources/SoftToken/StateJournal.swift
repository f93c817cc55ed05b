#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The changes made since the state file was last written whole, appended to `FILE.journal` one JSON line each,
/// so that making a credential or counting a PIN attempt costs one small fsynced append instead of rewriting
/// (and fsyncing) a state file whose size grows with every credential the token holds. Kept for its figure: see
/// docs/performance.md, "Kept for a figure".
///
/// Layout: a header line `{"journal":"webauthn-bridge SoftToken","generation":"…"}` naming the state file's
/// `counterGeneration`, then one entry a line: `{"credential":{…}}` (a record as the state file writes it, appended
/// to the credentials), and any of `"creationCounter"`, `"pinRetries"`, `"uvRetries"` with their new values.
///
/// A journal applies only to the state file whose generation it names: every whole save starts a new generation,
/// which retires the journal (it is then removed). An entry is acknowledged to the caller only after its append is
/// fsynced, so a last line that is cut short or unreadable was never acknowledged and is dropped on load (kill -9
/// or power loss during the append); an unreadable line before the last one makes the token corrupt, as a broken
/// state file does.
struct StateJournal {
    static let name = "webauthn-bridge SoftToken"
    /// Past this size the next change is saved whole, which starts an empty journal: bounds the replay at load.
    static let compactionBytes = 256 * 1024

    static func path(for statePath: String) -> String { statePath + ".journal" }

    /// One change a line can say; anything else (a PIN set, a credential replaced or removed, a large blob, the
    /// configuration) is saved whole.
    struct Entry: Codable, Equatable {
        var credential: StoredCredential?
        var creationCounter: Int?
        var pinRetries: Int?
        var uvRetries: Int?

        /// The entry that turns `old` into `new`, or nil when the difference is more than an entry can say.
        init?(from old: TokenState, to new: TokenState) {
            let count = old.credentials.count
            guard new.credentials.count == count || new.credentials.count == count + 1 else { return nil }
            var rest = new
            rest.credentials = old.credentials
            rest.creationCounter = old.creationCounter
            rest.pinRetries = old.pinRetries
            rest.uvRetries = old.uvRetries
            guard rest == old, new.credentials.prefix(count).elementsEqual(old.credentials) else { return nil }
            credential = new.credentials.count > count ? new.credentials.last : nil
            creationCounter = new.creationCounter != old.creationCounter ? new.creationCounter : nil
            pinRetries = new.pinRetries != old.pinRetries ? new.pinRetries : nil
            uvRetries = new.uvRetries != old.uvRetries ? new.uvRetries : nil
            guard credential != nil || creationCounter != nil || pinRetries != nil || uvRetries != nil else {
                return nil
            }
        }

        func apply(to state: inout TokenState) {
            if let credential { state.credentials.append(credential) }
            if let creationCounter { state.creationCounter = creationCounter }
            if let pinRetries { state.pinRetries = pinRetries }
            if let uvRetries { state.uvRetries = uvRetries }
        }

        /// One line, keys sorted like the state file's; the record is written by `StateEncoder`.
        var line: [UInt8] {
            var object = JSONObjectWriter(indent: nil, capacity: 640)
            if let creationCounter { object.field("creationCounter", int: creationCounter) }
            if let credential { object.field("credential", raw: StateEncoder.encode(credential)) }
            if let pinRetries { object.field("pinRetries", int: pinRetries) }
            if let uvRetries { object.field("uvRetries", int: uvRetries) }
            return object.finish(newline: true)
        }
    }

    private struct Header: Codable {
        var journal: String
        var generation: String
    }

    static func headerLine(generation: String) -> [UInt8] {
        var object = JSONObjectWriter(indent: nil, capacity: 96)
        object.field("journal", string: name)
        object.field("generation", string: generation)
        return object.finish(newline: true)
    }

    /// Replays the journal beside `statePath` onto `state` when it belongs to it; no journal, or one from another
    /// generation, leaves `state` as it is. Returns the size of the journal that applied (0 when none did: the
    /// next append then starts a new one), or nil for a state file without a generation (saved whole first).
    @discardableResult
    static func replay(onto state: inout TokenState, statePath: String) throws(SoftTokenError) -> Int? {
        guard state.counterGeneration != nil else { return nil }
        let path = path(for: statePath)
        let bytes: [UInt8]
        do { bytes = try StateFile.readAll(path) } catch .cannotRead(_, ENOENT) { return 0 }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // what follows the last newline: empty, or an append cut short
        let decoder = JSONDecoder()
        guard let first = lines.first, let header = try? decoder.decode(Header.self, from: Data(first)),
            header.journal == name
        else {
            // Even the header is unreadable: not a journal this code wrote (it makes each whole, then renames it).
            return 0
        }
        guard header.generation == state.counterGeneration else { return 0 }
        var replayed = state
        var applied = first.count + 1
        for (index, line) in lines.enumerated().dropFirst() {
            do {
                try decoder.decode(Entry.self, from: Data(line)).apply(to: &replayed)
                applied += line.count + 1
            } catch {
                if index == lines.count - 1 { break }  // the last append, never acknowledged
                throw .corruptState(path: path, reason: "journal line \(index + 1) is not readable: \(error)")
            }
        }
        state = replayed
        return applied
    }

    /// Appends `entry` after the first `size` bytes (what a load applied, or this process wrote) and waits until
    /// it is on disk. Whatever follows those bytes is an append that was never acknowledged and is cut off first;
    /// on failure the file is cut back to `size` again, so no later append follows a broken line.
    static func append(_ entry: Entry, to path: String, at size: Int) throws(SoftTokenError) -> Int {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWrite(path: path, step: "open", errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotWrite(path: path, step: "fstat", errno: errno) }
        // Shorter than what this process knows was written: someone else changed it; appending would be a guess.
        guard Int(info.st_size) >= size else { throw .cannotWrite(path: path, step: "check size", errno: ESTALE) }
        if Int(info.st_size) > size, ftruncate(fd, off_t(size)) != 0 {
            throw .cannotWrite(path: path, step: "truncate", errno: errno)
        }
        let line = entry.line
        var written = 0
        var failure: (step: String, errno: Int32)?
        while written < line.count {
            let n = line.withUnsafeBytes { write(fd, $0.baseAddress?.advanced(by: written), line.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = ("write", errno)
                break
            }
            written += n
        }
        if failure == nil, fdatasync(fd) != 0 { failure = ("fdatasync", errno) }
        if let failure {
            _ = ftruncate(fd, off_t(size))
            throw .cannotWrite(path: path, step: failure.step, errno: failure.errno)
        }
        return size + line.count
    }
}
