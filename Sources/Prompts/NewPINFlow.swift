import Secrets

/// PIN length rules as CTAP 2.1 states them (§6.5.1): a PIN is UTF-8, at least `minPINLength` Unicode code
/// points (4 unless the key says more), at most 63 bytes. Checked before the key sees the PIN: a PIN the
/// key would refuse anyway must not cost one of its retries.
enum PINRules {
    static let defaultMinimumLength = 4
    static let maximumBytes = 63

    /// Unicode code points in `bytes`, or nil when they are not valid UTF-8. Decodes in place: no `String`.
    static func codePointCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var count = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: count += 1
            case .emptyInput: return count
            case .error: return nil
            }
        }
    }

    /// Why `pin` breaks the rules, as a message for the prompt's error line; nil when it is acceptable.
    static func problem(with pin: SecretBytes, minimumLength: Int) -> String? {
        let minimum = max(minimumLength, 1)
        // NUL would cut the PIN short where it is handed to libfido2 as a C string.
        guard let length = pin.withUnsafeBytes({ $0.contains(0) ? nil : codePointCount($0) }) else {
            return "The PIN contains characters that cannot be used."
        }
        if length < minimum { return "The PIN must have at least \(minimum) characters." }
        if pin.count > maximumBytes { return "The PIN is too long (at most \(maximumBytes) bytes)." }
        return nil
    }
}

/// Asking for a new PIN: twice, until both entries agree and follow `PINRules`.
///
/// Written once over an `ask` closure so pinentry and the terminal behave identically; each prompt keeps
/// its session (dialog or terminal) open across the repeats.
struct NewPINFlow {
    let request: NewPINRequest
    /// A user who cannot get it right this often is probably not there: stop instead of looping forever.
    static let maximumRounds = 10

    /// `ask(prompt, errorLine)` shows one entry field and returns what was typed.
    func run(ask: (String, String?) throws(PromptError) -> SecretBytes) throws(PromptError) -> SecretBytes {
        var errorLine = request.retryMessage
        for _ in 0..<Self.maximumRounds {
            let first = try ask("New PIN:", errorLine)
            if let problem = PINRules.problem(with: first, minimumLength: request.minimumLength) {
                errorLine = problem
                continue
            }
            let second = try ask("Repeat PIN:", nil)
            guard first.hasSameBytes(as: second) else {
                errorLine = "The PINs do not match. Try again."
                continue
            }
            return first
        }
        throw .failed("no matching new PIN after \(Self.maximumRounds) tries")
    }

    /// The text shown above the entry field: who asks, and why a PIN is being set.
    var promptText: String {
        "Set a PIN for your security key.\n\n"
            + (request.reason
                ?? "\(request.origin) asks to use your security key for \(request.rpID), which requires a PIN.")
            + "\n"
            + "The PIN needs at least \(max(request.minimumLength, 1)) characters."
    }
}

extension PINRequest {
    /// The text shown above the entry field: who asks, and how many tries are left when known.
    var promptText: String {
        var text =
            "Enter the PIN of your security key.\n\n"
            + "Site: \(rpID)\nRequested by: \(origin)"
        if let attemptsLeft { text += "\n\(attemptsLeft) attempt\(attemptsLeft == 1 ? "" : "s") left." }
        return text
    }
}

/// Asking for an existing PIN: re-asks (without spending a key retry) while the entry breaks `PINRules`.
struct ExistingPINFlow {
    let request: PINRequest

    func run(ask: (String, String?) throws(PromptError) -> SecretBytes) throws(PromptError) -> SecretBytes {
        var errorLine = request.retryMessage
        for _ in 0..<NewPINFlow.maximumRounds {
            let pin = try ask("PIN:", errorLine)
            guard let problem = PINRules.problem(with: pin, minimumLength: PINRules.defaultMinimumLength) else {
                return pin
            }
            errorLine = problem
        }
        throw .failed("no usable PIN after \(NewPINFlow.maximumRounds) tries")
    }
}
