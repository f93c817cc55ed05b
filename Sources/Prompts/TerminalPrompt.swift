import Glibc
import Secrets
import Synchronization

/// Asks on a terminal (`/dev/tty`): the fallback when no pinentry program exists but the browser was started
/// from a shell, so the user can see and answer a prompt there.
///
/// Echo is switched off while the PIN is typed and the saved terminal settings are restored on every exit
/// path (answer, error, Ctrl-C, `cancel()`). Input is read byte by byte with canonical mode and signals off,
/// so Ctrl-C cancels the prompt instead of killing the browser, and the PIN never sits in the kernel's
/// line-editing buffer longer than needed. A kill signal that arrives while echo is off leaves it off
/// (nothing can run then); `stty sane` repairs that. A host in a background process group of that terminal
/// would be stopped by SIGTTOU/SIGTTIN here, as any terminal program is; browsers started from a shell and
/// left in the foreground are the case this fallback serves.
public final class TerminalPrompt: PINPrompt {
    public let ttyPath: String
    private let activeRead = ActiveRead()

    public init(ttyPath: String = "/dev/tty") {
        self.ttyPath = ttyPath
    }

    public func readPIN(_ request: PINRequest) throws(PromptError) -> SecretBytes {
        try session { terminal throws(PromptError) in
            try terminal.write("\n" + request.promptText + "\n")
            return try ExistingPINFlow(request: request).run { prompt, error throws(PromptError) in
                try terminal.ask(prompt: prompt, error: error)
            }
        }
    }

    public func readNewPIN(_ request: NewPINRequest) throws(PromptError) -> SecretBytes {
        let flow = NewPINFlow(request: request)
        return try session { terminal throws(PromptError) in
            try terminal.write("\n" + flow.promptText + "\n")
            return try flow.run { prompt, error throws(PromptError) in
                try terminal.ask(prompt: prompt, error: error)
            }
        }
    }

    /// Prints the notice; no answer is awaited and the terminal settings are not touched.
    public func showMessage(_ text: String) throws(PromptError) {
        let fd = open(ttyPath, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .unavailable("cannot open terminal \(ttyPath): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try Terminal(fd: fd, cancelSignal: nil).write("\n\(text)\n")
    }

    public func cancel() {
        activeRead.cancel()
    }

    private func session<R>(_ body: (Terminal) throws(PromptError) -> R) throws(PromptError) -> R {
        let fd = open(ttyPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .unavailable("cannot open terminal \(ttyPath): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard isatty(fd) == 1 else { throw .unavailable("\(ttyPath) is not a terminal") }

        return try activeRead.run { (cancelSignal) throws(PromptError) -> R in
            try withEchoOff(fd, cancelSignal, body)
        }
    }

    /// Echo, line mode and signals off for the read; the saved settings come back on every path.
    private func withEchoOff<R>(
        _ fd: Int32, _ cancelSignal: CancelSignal,
        _ body: (Terminal) throws(PromptError) -> R
    ) throws(PromptError) -> R {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw .failed("cannot read the settings of \(ttyPath)") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // TCSAFLUSH also drops anything typed before the prompt appeared.
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { throw .failed("cannot switch off echo on \(ttyPath)") }
        defer { _ = tcsetattr(fd, TCSANOW, &saved) }

        return try body(Terminal(fd: fd, cancelSignal: cancelSignal))
    }
}

/// One open terminal in no-echo, byte-at-a-time mode.
private struct Terminal {
    let fd: Int32
    /// Nil for write-only use (`showMessage`).
    let cancelSignal: CancelSignal?

    func write(_ text: String) throws(PromptError) {
        let bytes = Array(text.utf8)  // the terminal's ONLCR turns \n into \r\n
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress?.advanced(by: written), $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .failed("cannot write to the terminal (errno \(errno))")
            }
            written += n
        }
    }

    /// Shows `error` (if any) and `prompt`, then reads one line without echo. Line editing is done here:
    /// Backspace/Delete erase one character, Ctrl-U the line, Ctrl-C and Ctrl-D (on an empty line) cancel.
    func ask(prompt: String, error: String?) throws(PromptError) -> SecretBytes {
        if let error { try write("\(error)\n") }
        try write(prompt + " ")
        let line = ZeroingBuffer()
        let chunk = ZeroingBuffer(capacity: 64)
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // 32 bytes, zeroed below
        defer {
            withUnsafeMutableBytes(of: &scratch) { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
        }
        while true {
            guard let cancelSignal else { throw .failed("terminal opened for writing only") }
            try cancelSignal.waitReadable(fd)
            let n = withUnsafeMutableBytes(of: &scratch) { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .failed("cannot read from the terminal (errno \(errno))")
            }
            if n == 0 { throw .failed("the terminal was closed") }
            chunk.clear()
            withUnsafeBytes(of: &scratch) { for byte in $0.prefix(n) { chunk.append(byte) } }
            for byte in chunk.bytes {
                switch byte {
                case 0x0A, 0x0D:
                    try write("\n")
                    return line.takeSecret()
                case 0x03:
                    try? write("\n")
                    throw .cancelled
                case 0x04 where line.count == 0:
                    try? write("\n")
                    throw .cancelled
                case 0x7F, 0x08:
                    // Erase one whole UTF-8 character: continuation bytes, then the lead byte.
                    while line.count > 0, line.bytes[line.count - 1] & 0xC0 == 0x80 { line.removeLast(1) }
                    line.removeLast(1)
                case 0x15:
                    line.clear()
                case ..<0x20:
                    continue  // other control characters (escape sequences' ESC) are not PIN characters
                default:
                    line.append(byte)
                }
            }
        }
    }
}
