/// The DOMException names a browser raises from `navigator.credentials.create/get`, plus TypeError.
/// The host sends `name` verbatim so the page sees what it would see without the bridge.
/// "RangeError" is what Chromium names the DOMException it rejects an over-long credential list with (a
/// DOMException whose name is RangeError, not a JavaScript RangeError: checked in Chromium 156).
public enum DOMExceptionName: String, CaseIterable, Sendable, Equatable {
    case notAllowed = "NotAllowedError"
    case invalidState = "InvalidStateError"
    case security = "SecurityError"
    case notSupported = "NotSupportedError"
    case abort = "AbortError"
    case constraint = "ConstraintError"
    case syntax = "SyntaxError"
    case unknown = "UnknownError"
    case encoding = "EncodingError"
    case typeError = "TypeError"
    case range = "RangeError"
}

/// A failure the page must see as a rejected promise. `message` is for people: it names the option or rule
/// that failed ("user.id must be 1 to 64 bytes"), never a secret.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: DOMExceptionName
    public let message: String
    /// The user may try again: a failure Chromium's dialog holds with a "Try again" button (the key the user
    /// touched holds no credential for the site, already holds one, is PIN-blocked, lacks what the request needs,
    /// is full, refused, or was pulled out during the PIN), rather than one that ends the request (a timeout, a
    /// cancel, an unreadable answer).
    public private(set) var offersRetry = false

    public init(_ name: DOMExceptionName, _ message: String) {
        self.name = name
        self.message = message
    }

    public init(name: DOMExceptionName, message: String) { self.init(name, message) }

    public static func typeError(_ message: String) -> WebAuthnError { WebAuthnError(.typeError, message) }
    public static func notAllowed(_ message: String) -> WebAuthnError { WebAuthnError(.notAllowed, message) }
    public static func invalidState(_ message: String) -> WebAuthnError { WebAuthnError(.invalidState, message) }
    public static func abort(_ message: String) -> WebAuthnError { WebAuthnError(.abort, message) }
    public static func security(_ message: String) -> WebAuthnError { WebAuthnError(.security, message) }
    public static func notSupported(_ message: String) -> WebAuthnError { WebAuthnError(.notSupported, message) }
    public static func encoding(_ message: String) -> WebAuthnError { WebAuthnError(.encoding, message) }

    /// The same failure, one the user may try again (`offersRetry`).
    public func retryable() -> WebAuthnError {
        var copy = self
        copy.offersRetry = true
        return copy
    }

    /// `{"name": …, "message": …}`, the `error` member of an error frame.
    public var json: JSONValue { .object([("name", .string(name.rawValue)), ("message", .string(message))]) }

    public var description: String { "\(name.rawValue): \(message)" }
}
