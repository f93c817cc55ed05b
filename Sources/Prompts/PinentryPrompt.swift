import Glibc
import Processes
import Secrets
import Synchronization

/// Asks through a pinentry program (GnuPG's dialog: gnome3, qt, gtk2, curses, tty), speaking Assuan to it
/// the way gpg-agent does. The host has no terminal of its own (the browser owns its stdio), so this is how
/// a PIN request reaches the user's desktop.
///
/// One pinentry process per read: started, told who asks (SETDESC names rp.id and origin), asked (GETPIN,
/// repeated for a new PIN in the same dialog), told BYE, reaped. `cancel()` interrupts it with SIGINT, which
/// pinentry treats as "cancel" (terminal pinentries restore echo), escalating to SIGTERM and SIGKILL.
///
/// A final class, not a struct: `cancel()` reaches the read in progress through shared state.
public final class PinentryPrompt: PINPrompt {
    /// As given: a path, or a name looked up in the PATH of `environment` when a read starts.
    public let program: String
    /// The pinentry's whole environment (DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS matter to the
    /// graphical ones; TERM, GPG_TTY and LC_* to the terminal ones).
    public let environment: [String: String]
    /// The terminal passed as `OPTION ttyname`; nil: `GPG_TTY` from `environment`, else the controlling
    /// terminal if the host has one, else none (a graphical pinentry needs none); empty: none at all.
    public let ttyName: String?

    private let activeRead = ActiveRead()
    private let childPID = Atomic<Int32>(0)

    /// A program (with its arguments) that runs the pinentry, e.g. `ParentDeathSignal.launcher`; empty: none.
    public let launcher: [String]

    public init(
        program: String, environment: [String: String] = currentEnvironment(), ttyName: String? = nil,
        launcher: [String] = []
    ) {
        self.program = program
        self.environment = environment
        self.ttyName = ttyName
        self.launcher = launcher
    }

    /// PID of the most recently started pinentry (0 before the first), so tests can check it is gone.
    var lastChildPID: pid_t { childPID.load(ordering: .acquiring) }

    public func readPIN(_ request: PINRequest) throws(PromptError) -> SecretBytes {
        try session { connection throws(PromptError) in
            try connection.transact("SETDESC " + AssuanConnection.escape(request.promptText))
            return try ExistingPINFlow(request: request).run { prompt, error throws(PromptError) in
                try Self.getPIN(connection, prompt: prompt, error: error)
            }
        }
    }

    public func readNewPIN(_ request: NewPINRequest) throws(PromptError) -> SecretBytes {
        let flow = NewPINFlow(request: request)
        return try session { connection throws(PromptError) in
            try connection.transact("SETDESC " + AssuanConnection.escape(flow.promptText))
            return try flow.run { prompt, error throws(PromptError) in
                try Self.getPIN(connection, prompt: prompt, error: error)
            }
        }
    }

    /// Shows a notice with an OK button (pinentry's MESSAGE), e.g. "The key is locked: reset it".
    /// Returns when the user dismissed it; `cancel()` closes it.
    public func showMessage(_ text: String) throws(PromptError) {
        try session { connection throws(PromptError) in
            try connection.transact("SETDESC " + AssuanConnection.escape(text))
            try connection.transact("MESSAGE")
        }
    }

    public func cancel() {
        activeRead.cancel()
    }

    private static func getPIN(
        _ connection: AssuanConnection, prompt: String,
        error: String?
    ) throws(PromptError) -> SecretBytes {
        try connection.transact("SETPROMPT " + AssuanConnection.escape(prompt))
        if let error { try connection.transact("SETERROR " + AssuanConnection.escape(error)) }
        let pin = ZeroingBuffer()
        try connection.transact("GETPIN", data: pin)
        return pin.takeSecret()
    }

    /// Starts pinentry, greets and configures it, runs `body`, says BYE and reaps it, on every path.
    func session<R>(_ body: (AssuanConnection) throws(PromptError) -> R) throws(PromptError) -> R {
        guard let executable = ChildProcess.resolveExecutable(program, environment: environment) else {
            throw .unavailable("pinentry program \"\(program)\" not found or not executable")
        }
        return try activeRead.run { (cancelSignal) throws(PromptError) -> R in
            try run(executable, cancelSignal, body)
        }
    }

    private func run<R>(
        _ executable: String, _ cancelSignal: CancelSignal,
        _ body: (AssuanConnection) throws(PromptError) -> R
    ) throws(PromptError) -> R {
        let terminalName =
            ttyName.map { $0.isEmpty ? nil : $0 } ?? environment["GPG_TTY"] ?? Self.controllingTerminalName()
        let terminal = terminalName.flatMap(TerminalSnapshot.init(path:))
        let child: ChildProcess
        do {
            let command = launcher + [executable]
            child = try ChildProcess(
                executable: command[0], arguments: Array(command.dropFirst()), environment: environment)
        } catch {
            if case .noPipe = error { throw .failed("\(error)") }
            throw .unavailable("\(error)")
        }
        childPID.store(child.pid, ordering: .releasing)
        let connection = AssuanConnection(input: child.input, output: child.output, cancelSignal: cancelSignal)
        do {
            try connection.readGreeting()
            try configure(connection, terminalName: terminalName)
            let result = try body(connection)
            Self.endSession(child, connection, terminal)
            return result
        } catch {
            // After cancel() nothing is polite: interrupt at once. After an ERR (the user pressed Cancel)
            // pinentry is still listening and gets a BYE like after success.
            if cancelSignal.isFired {
                Self.end(child, terminal)
            } else {
                Self.endSession(child, connection, terminal)
            }
            throw error
        }
    }

    /// BYE, EOF, and a second to exit on its own before being interrupted.
    private static func endSession(
        _ child: ChildProcess, _ connection: AssuanConnection,
        _ terminal: TerminalSnapshot?
    ) {
        try? connection.send("BYE")
        child.closeInput()
        if !child.waitForExit(seconds: 1) { end(child, terminal) }
    }

    /// Puts the terminal's settings back whenever the pinentry had to be stopped: killed, it could not; and an
    /// interrupt repeated while it was restoring them may have ended it halfway (curses resets its handler).
    /// What is put back is what it would have restored itself: the settings from before it started.
    private static func end(_ child: ChildProcess, _ terminal: TerminalSnapshot?) {
        if child.terminate() { terminal?.restore() }
    }

    /// OPTIONs are best effort (a pinentry may not know one); cancelling is still honoured.
    private func configure(_ connection: AssuanConnection, terminalName: String?) throws(PromptError) {
        var options: [String] = []
        if let tty = terminalName {
            options.append("ttyname=\(tty)")
            if let term = environment["TERM"], !term.isEmpty { options.append("ttytype=\(term)") }
        }
        if let ctype = environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"], !ctype.isEmpty {
            options.append("lc-ctype=\(ctype)")
        }
        for option in options {
            do {
                try connection.transact("OPTION " + AssuanConnection.escape(option))
            } catch .cancelled {
                throw .cancelled
            } catch {
                continue
            }
        }
        try connection.transact("SETTITLE webauthn-bridge")
    }

    /// The host's terminal (browser started from a shell), if any: the name of a terminal on stderr/stdin
    /// (stdout is the browser's pipe), else "/dev/tty" when it opens. pinentry shares our session, so
    /// "/dev/tty" names the same terminal for it; a real name is only nicer in its messages.
    static func controllingTerminalName() -> String? {
        for fd in [STDERR_FILENO, STDIN_FILENO] where isatty(fd) == 1 {
            if let name = ttyname(fd) { return String(cString: name) }
        }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        close(fd)
        return "/dev/tty"
    }
}
