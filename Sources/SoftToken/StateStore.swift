#if canImport(Glibc)
import Glibc
#endif

/// Saves one token's state in the cheapest durable way for the change at hand:
/// - a credential made, or a retry counter changed: one line appended to the journal (see `StateJournal`);
/// - a signature counter bumped: the small counter file, not fsynced (see `CounterFile`);
/// - anything else, and whenever the journal is not known to belong to the state file: the whole state file,
///   fsynced, under a new generation, which retires both the journal and the counter file.
struct StateStore {
    let path: String
    /// The generation and size of the journal this store may append to; nil until this store has written the
    /// state file whole or loaded it with its journal.
    private var journal: (generation: String, size: Int)?
    /// Past this journal size the next change is saved whole (see `StateJournal.compactionBytes`; tests lower it).
    var compactionBytes = StateJournal.compactionBytes

    init(path: String, journalSize: Int? = nil, generation: String? = nil) {
        self.path = path
        if let journalSize, let generation { journal = (generation, journalSize) }
    }

    /// Saves the change from `previous` to `state`: appended to the journal when an entry can say it, else whole.
    /// A journal that cannot be written (removed, replaced, a full disk that still takes the smaller file…) is
    /// retired by saving whole instead. `state` gets the new generation only on success.
    mutating func save(_ state: inout TokenState, changedFrom previous: TokenState) throws(SoftTokenError) {
        guard let journal, journal.generation == previous.counterGeneration, journal.size < compactionBytes,
            let entry = StateJournal.Entry(from: previous, to: state)
        else { return try save(&state) }
        do {
            let size = try append(entry, to: journal)
            self.journal?.size = size
        } catch {
            try save(&state)
        }
    }

    private func append(_ entry: StateJournal.Entry, to journal: (generation: String, size: Int)) throws(SoftTokenError)
        -> Int
    {
        let journalPath = StateJournal.path(for: path)
        guard journal.size == 0 else { return try StateJournal.append(entry, to: journalPath, at: journal.size) }
        // A new journal is made whole, then renamed into place: its header is never torn.
        let bytes = StateJournal.headerLine(generation: journal.generation) + entry.line
        try StateFile.writeAtomically(bytes, to: journalPath, durable: true)
        return bytes.count
    }

    /// Writes the whole state under a new counter generation, which retires any counter file and journal written
    /// before: the state file now holds everything itself.
    mutating func save(_ state: inout TokenState) throws(SoftTokenError) {
        var saved = state
        let generation = CounterFile.newGeneration()
        saved.counterGeneration = generation
        let bytes: [UInt8]
        do { bytes = try StateEncoder.encode(saved) } catch {
            throw .cannotWrite(path: path, step: "encode", errno: EINVAL)
        }
        try StateFile.writeAtomically(bytes, to: path, durable: true)
        state = saved
        // The old journal and counter file no longer apply (their generation is gone): removing them only keeps
        // the directory tidy, and a token created where another was does not sit beside its leftovers.
        unlink(StateJournal.path(for: path))
        unlink(CounterFile.path(for: path))
        journal = (generation, 0)
    }

    /// Writes only the counters. A state file from before counter files existed has no generation yet, so it
    /// is saved whole once instead.
    mutating func saveCounters(_ state: inout TokenState) throws(SoftTokenError) {
        guard let generation = state.counterGeneration else { return try save(&state) }
        let bytes = CounterFile.encode(state.credentials.map(\.signCount), generation: generation)
        try StateFile.writeAtomically(bytes, to: CounterFile.path(for: path), durable: false)
    }
}
