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

    /// `{"name": …, "message": …}`, the `error` member of an error frame.
    public var json: JSONValue { .object([("name", .string(name.rawValue)), ("message", .string(message))]) }

    public var description: String { "\(name.rawValue): \(message)" }
}
