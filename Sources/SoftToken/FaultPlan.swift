/// Test-only fault injection, set through `SoftToken.faults`. Kept in memory only (never in the state file), so a
/// token loaded from disk always behaves correctly.
///
/// Faults change only what goes over the wire: a command still runs (and its state change is saved atomically)
/// unless `injectedErrors` answers it instead, so the state file is always intact. A response fault hits every
/// CBOR response from the moment it is set — including the getInfo that `fido_dev_open` sends, in which case
/// libfido2 falls back to U2F: the open "succeeds", `fido_dev_is_fido2` is false, and the next ceremony fails.
/// CTAPHID_INIT answers are never corrupted. Always use `fido_dev_set_timeout` with `.stall`, `.wrongChannel` and
/// `.keepAliveForever`, or libfido2 waits forever, as it would for a real key that hangs.
///
/// - `dropConnectionAfterReports`: after this many more reports (counted in both directions from the moment
///   the plan is set) every read and write fails, as if the key was pulled out. libfido2 reports FIDO_ERR_TX/RX.
/// - `response`: how CBOR responses are corrupted — see `ResponseFault`.
/// - `injectedErrors`: CTAP command byte → status byte to answer instead of running the command
///   (e.g. `[CTAPCommand.getAssertion.rawValue: CTAPStatus.pinAuthBlocked.rawValue]`).
public struct FaultPlan: Sendable, Equatable {
    public var dropConnectionAfterReports: Int?
    public var response: ResponseFault?
    public var injectedErrors: [UInt8: UInt8]

    public init(dropConnectionAfterReports: Int? = nil, response: ResponseFault? = nil, injectedErrors: [UInt8: UInt8] = [:]) {
        self.dropConnectionAfterReports = dropConnectionAfterReports
        self.response = response
        self.injectedErrors = injectedErrors
    }

    /// No faults: the token behaves like a correct authenticator.
    public static let none = FaultPlan()

    public var isEmpty: Bool { self == .none }
}

/// A way to corrupt the CTAPHID frames of a CBOR response.
public enum ResponseFault: Sendable, Equatable {
    /// The first report carries the right channel id but random bytes after it (nonsense command and length).
    case garbage
    /// Every report of the response is addressed to another channel id, so libfido2 ignores it and times out.
    case wrongChannel
    /// The continuation reports are numbered from 5 instead of 0 (use with responses longer than one report,
    /// such as getInfo or makeCredential).
    case badSequence
    /// No answer at all, ever.
    case stall
    /// KEEPALIVE(PROCESSING) every 100 ms forever, and never the answer.
    case keepAliveForever
}
