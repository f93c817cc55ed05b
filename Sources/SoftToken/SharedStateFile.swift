#if canImport(Glibc)
import Glibc
#endif

/// One token file, several processes: two browsers each start a host, and both hosts open the same SoftToken, as
/// both would open the same USB key. A real key is one device they take turns at; so is a SoftToken's file. Every
/// command runs under an exclusive `flock` on `FILE.lock` and first takes up what another process saved since this
/// one last read or wrote the files, so neither saves over a credential or retry counter the other saved (before,
/// the last writer won and the other host's credentials were lost). Held only while a command runs, never while
/// it waits for the simulated touch.
extension SoftToken {
    func withSharedStateFile<T>(_ body: () -> T) -> T {
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if lock >= 0 { while flock(lock, LOCK_EX) != 0, errno == EINTR {} }
        defer { if lock >= 0 { Glibc.close(lock) } }  // closing the descriptor releases the lock
        if StateFilesFingerprint(path) != filesSeen { takeUpOtherProcessesChanges() }
        let result = body()
        filesSeen = StateFilesFingerprint(path)
        return result
    }

    private func takeUpOtherProcessesChanges() {
        // Unreadable (pulled out, or mid-replacement by a process without the lock): keep what this one has.
        guard let loaded = try? StateFile.loadWithJournal(path) else { return }
        let compactionBytes = store.compactionBytes
        state = loaded.state
        store = StateStore(path: path, journalSize: loaded.journalSize, generation: loaded.state.counterGeneration)
        store.compactionBytes = compactionBytes
    }
}

/// What tells that another process changed a token's files: inode, size and modification time of the state file,
/// its journal and its counter file (each saved by rename or append, so any save changes one of them).
struct StateFilesFingerprint: Equatable {
    private var files: [[Int64]?] = []

    init(_ statePath: String) {
        files = [statePath, StateJournal.path(for: statePath), CounterFile.path(for: statePath)].map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return [Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
        }
    }
}
