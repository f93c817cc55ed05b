#if canImport(Glibc)
import Glibc
#endif

/// Saves one token's state: the whole state file (fsynced) when anything but signature counters changes, only
/// the small counter file (see `CounterFile`) when a ceremony just bumps a counter.
struct StateStore {
    let path: String
    private var encoder = StateEncoder()

    init(path: String) { self.path = path }

    /// Writes the whole state under a new counter generation, which retires any counter file written before:
    /// the state file now holds the current counters itself. `state` gets the new generation only on success.
    mutating func save(_ state: inout TokenState) throws(SoftTokenError) {
        var saved = state
        saved.counterGeneration = CounterFile.newGeneration()
        let bytes: [UInt8]
        do { bytes = try encoder.encode(saved) } catch { throw .cannotWrite(path: path, step: "encode", errno: EINVAL) }
        try StateFile.writeAtomically(bytes, to: path, durable: true)
        state = saved
    }

    /// Writes only the counters. A state file from before counter files existed has no generation yet, so it
    /// is saved whole once instead.
    mutating func saveCounters(_ state: inout TokenState) throws(SoftTokenError) {
        guard let generation = state.counterGeneration else { return try save(&state) }
        let bytes = CounterFile.encode(state.credentials.map(\.signCount), generation: generation)
        try StateFile.writeAtomically(bytes, to: CounterFile.path(for: path), durable: false)
    }
}
