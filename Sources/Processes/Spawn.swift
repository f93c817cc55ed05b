import Glibc

/// What one of a child's standard descriptors (0, 1, 2) becomes.
public enum ChildStream: Sendable {
    /// A copy of one of ours (a pipe end), or of the child's own descriptor set up before it (`2 → 1`).
    case descriptor(Int32)
    /// A file opened in the child.
    case file(String, flags: Int32)
}

/// Why a child could not be started.
public enum SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
    case noPipe(errno: Int32)
    case cannotStart(executable: String, reason: String)

    public var description: String {
        switch self {
        case .noPipe(let code): "cannot create a pipe (errno \(code))"
        case .cannotStart(let executable, let reason): "cannot start \(executable): \(reason)"
        }
    }
}

/// The one way every process the bridge starts is started (pinentry, the host for `doctor` and `bench`, the demo's
/// browser): `posix_spawn`, so nothing runs between fork and exec in a process with threads.
public enum Spawn {
    /// Starts `command` (its first element an absolute path) with exactly `environment` ("NAME=value" entries)
    /// and returns its PID.
    ///
    /// The child inherits no descriptor but its three standard ones, even descriptors other threads opened
    /// without O_CLOEXEC (a leaked pipe end would keep a peer from ever seeing EOF; a browser must not inherit
    /// the demo's listening socket). It starts with nothing blocked and every signal at its default, whatever
    /// this thread has: the host ignores SIGPIPE, its threads may block signals, and a pinentry that inherited
    /// an ignored or blocked SIGINT could not be cancelled politely. `newSession`: the child leads a process
    /// group of its own, so that signalling the group reaches its helpers too.
    public static func start(
        _ command: [String], environment: [String], stdin: ChildStream, stdout: ChildStream, stderr: ChildStream,
        newSession: Bool = false
    ) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, target)
            case .file(let path, let flags): posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o600)
            }
        }
        closeDescriptorsAboveStderr(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&none)
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let session = newSession ? setSessionFlag : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | session))

        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw .cannotStart(executable: command[0], reason: String(cString: strerror(status)))
        }
        return child
    }

    /// POSIX_SPAWN_SETSID (glibc ≥ 2.26), which Swift's Glibc module does not export.
    static let setSessionFlag: Int32 = 0x80

    /// glibc ≥ 2.34 has `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not export:
    /// looked up.
    private static func closeDescriptorsAboveStderr(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard
            let symbol = dlsym(
                UnsafeMutableRawPointer(bitPattern: 0),  // RTLD_DEFAULT
                "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
}
