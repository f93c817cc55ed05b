import Glibc

/// A terminal's settings as they were before a pinentry started on it, to put back if that pinentry has to be
/// killed: a terminal pinentry switches echo off while it asks and only switches it back on when it ends by
/// itself or on SIGINT. Without this, a killed pinentry-tty would leave the user's shell typing blind.
final class TerminalSnapshot {
    private let fd: Int32
    private var settings = termios()

    /// Nil when `path` does not open or is not a terminal: nothing to protect then.
    init?(path: String) {
        fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard isatty(fd) == 1, tcgetattr(fd, &settings) == 0 else {
            close(fd)
            return nil
        }
    }

    func restore() {
        _ = tcsetattr(fd, TCSANOW, &settings)
    }

    deinit { close(fd) }
}
