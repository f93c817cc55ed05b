import Glibc
import Threading

/// SIGTERM, SIGINT and SIGHUP end the host in order rather than at once: a host killed outright would leave
/// the pinentry it started asking the user for a PIN nobody waits for (and a terminal pinentry with the
/// terminal's echo off). The handler only writes the signal's number into a pipe (all a handler may safely
/// do); a thread of its own reads it and runs the shutdown.
enum TerminationSignals {
    static let handled = [SIGTERM, SIGINT, SIGHUP]

    /// Installs the handlers and calls `shutdown` with the first signal that arrives, on the watcher thread.
    /// `shutdown` must end the process.
    static func watch(_ shutdown: @escaping @Sendable (Int32) -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }  // without a pipe the signals keep their default: exit at once
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        terminationPipe = ends[1]
        for signal in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                var number = UInt8(truncatingIfNeeded: signal)
                _ = write(terminationPipe, &number, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        let readEnd = ends[0]
        startDetachedThread(name: "signals") {
            var number: UInt8 = 0
            while read(readEnd, &number, 1) < 0, errno == EINTR {}
            shutdown(Int32(number))
        }
    }

    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }
}

/// The write end the handler uses; set once before any handler is installed.
nonisolated(unsafe) private var terminationPipe: Int32 = -1
