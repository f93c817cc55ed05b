import Secrets

/// What the user is asked for an existing PIN. `rpID` and `origin` are shown so the user sees who asks.
public struct PINRequest: Sendable, Equatable {
    public var rpID: String
    public var origin: String
    /// PIN retries the key reports, shown when known.
    public var attemptsLeft: Int?
    /// Shown as an error above the prompt on a retry, e.g. "Wrong PIN. 5 attempts left."
    public var retryMessage: String?

    public init(rpID: String, origin: String, attemptsLeft: Int? = nil, retryMessage: String? = nil) {
        self.rpID = rpID
        self.origin = origin
        self.attemptsLeft = attemptsLeft
        self.retryMessage = retryMessage
    }
}

/// What the user is asked when a key has no PIN yet and the site requires one (PIN set-up).
public struct NewPINRequest: Sendable, Equatable {
    public var rpID: String
    public var origin: String
    /// The key's minimum PIN length in Unicode code points (CTAP default 4).
    public var minimumLength: Int
    public var retryMessage: String?
    /// Why a new PIN is asked, shown instead of "ORIGIN asks to use your security key for RPID" when the owner
    /// sets or changes the PIN themselves (`webauthn-bridge key pin`).
    public var reason: String?

    public init(
        rpID: String, origin: String, minimumLength: Int = 4, retryMessage: String? = nil, reason: String? = nil
    ) {
        self.rpID = rpID
        self.origin = origin
        self.minimumLength = minimumLength
        self.retryMessage = retryMessage
        self.reason = reason
    }
}

/// Why no PIN was returned. Messages are for the user and the log; they never contain the PIN.
public enum PromptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The user cancelled, or `cancel()` was called: the host answers NotAllowedError "PIN entry cancelled".
    case cancelled
    /// No way to ask: the program is missing or not executable, or the terminal cannot be opened.
    case unavailable(String)
    /// The prompt broke: protocol error, the program crashed or refused a command.
    case failed(String)

    public var description: String {
        switch self {
        case .cancelled: "PIN entry cancelled"
        case .unavailable(let why): "no PIN prompt available: \(why)"
        case .failed(let why): "PIN prompt failed: \(why)"
        }
    }
}

/// The seam between the ceremony code and the user: pinentry, the terminal, or a test script.
///
/// Calls block the calling thread (the device thread) until the user answers. One read at a time per
/// instance; a second concurrent read fails at once.
public protocol PINPrompt: Sendable {
    /// Asks for the key's current PIN.
    func readPIN(_ request: PINRequest) throws(PromptError) -> SecretBytes

    /// Asks for a new PIN twice. Re-asks, with a message, when the entries differ or the PIN is shorter than
    /// `minimumLength` code points (CTAP counts code points) or longer than 63 bytes (CTAP's maximum).
    func readNewPIN(_ request: NewPINRequest) throws(PromptError) -> SecretBytes

    /// Called from another thread while a read is in progress: that read returns `.cancelled` promptly.
    /// Without a read in progress this does nothing; the caller checks its own cancel state before asking.
    func cancel()

    /// Shows a notice that needs no answer ("Your security key is locked: reset it to use it again").
    /// pinentry shows a dialog and returns when it is dismissed; the terminal prints it and returns.
    func showMessage(_ text: String) throws(PromptError)
}

extension PINPrompt {
    /// Prompts without a way to show notices (test doubles) ignore them.
    public func showMessage(_ text: String) throws(PromptError) {}
}
