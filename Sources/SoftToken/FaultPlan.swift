/// Test-only fault injection, set through `SoftToken.faults` or, for a token inside another process (the host),
/// through a fault file beside its state file (`FaultPlanFile`). Kept in memory only (never in the state file),
/// so a token loaded from disk always behaves correctly.
///
/// Faults change only what goes over the wire: a command still runs (and its state change is saved atomically)
/// unless `injectedErrors` or `clientPINErrors` answers it instead, so the state file is always intact. Without
/// `command`, a response fault hits every CBOR response from the moment it is set — including the getInfo that
/// `fido_dev_open` sends, in which case libfido2 falls back to U2F: the open "succeeds", `fido_dev_is_fido2` is
/// false, and the next ceremony fails. CTAPHID_INIT answers are never corrupted. Always use
/// `fido_dev_set_timeout` with `.stall`, `.wrongChannel` and `.keepAliveForever`, or libfido2 waits forever, as
/// it would for a real key that hangs.
///
/// - `command`: the CTAP command byte the response fault and the report count apply to (nil: every command).
///   With a command, reports are counted from the first report of that command's request.
/// - `dropConnectionAfterReports`: after this many more reports (counted in both directions) every read and
///   write fails, as if the connection broke. libfido2 reports FIDO_ERR_TX/RX.
/// - `unplugAfterReports`: the same, and the key is pulled out of the port too: its state file is renamed to
///   `FILE.unplugged` (rename it back to plug the key in again, with all its state).
/// - `response`: how CBOR responses are corrupted — see `ResponseFault`.
/// - `injectedErrors`: CTAP command byte → status byte to answer instead of running the command
///   (e.g. `[CTAPCommand.getAssertion.rawValue: CTAPStatus.pinAuthBlocked.rawValue]`).
/// - `clientPINErrors`: the same for authenticatorClientPIN subcommands (e.g. 0x09, getPinUvAuthToken using
///   the PIN, answered PIN_BLOCKED), where real keys report PIN and UV failures.
/// - `times`: how many commands the response fault and the injected errors hit; nil: all of them.
public struct FaultPlan: Sendable, Equatable {
    public var command: UInt8?
    public var dropConnectionAfterReports: Int?
    public var unplugAfterReports: Int?
    public var response: ResponseFault?
    public var injectedErrors: [UInt8: UInt8]
    public var clientPINErrors: [UInt8: UInt8]
    public var times: Int?

    public init(
        command: UInt8? = nil, dropConnectionAfterReports: Int? = nil, unplugAfterReports: Int? = nil,
        response: ResponseFault? = nil, injectedErrors: [UInt8: UInt8] = [:], clientPINErrors: [UInt8: UInt8] = [:],
        times: Int? = nil
    ) {
        self.command = command
        self.dropConnectionAfterReports = dropConnectionAfterReports
        self.unplugAfterReports = unplugAfterReports
        self.response = response
        self.injectedErrors = injectedErrors
        self.clientPINErrors = clientPINErrors
        self.times = times
    }

    /// No faults: the token behaves like a correct authenticator.
    public static let none = FaultPlan()

    public var isEmpty: Bool { self == .none }

    /// The report budget of the connection-breaking faults, whichever comes first.
    var reportLimit: Int? { [dropConnectionAfterReports, unplugAfterReports].compactMap { $0 }.min() }
}

/// A way to corrupt the CTAPHID frames of a CBOR response.
public enum ResponseFault: String, Sendable, Equatable, CaseIterable {
    /// The first report carries the right channel id but random bytes after it (nonsense command and length).
    case garbage
    /// The first report is cut short (16 of its 64 bytes), as a HID read that returns less than a report.
    case shortReport
    /// Every report of the response is addressed to another channel id, so libfido2 ignores it and times out.
    case wrongChannel
    /// A copy of the response addressed to another channel comes first, then the response itself: a correct
    /// platform ignores the stray one.
    case strayReport
    /// The continuation reports are numbered from 5 instead of 0 (use with responses longer than one report,
    /// such as getInfo or makeCredential).
    case badSequence
    /// The CBOR after the status byte is cut in half; the CTAPHID length says so, so only the CBOR is broken.
    case truncatedCBOR
    /// The response is padded to the largest CTAPHID message (7,609 bytes), beyond any response a platform
    /// accepts (libfido2 reads at most 2,048 bytes).
    case oversizedCBOR
    /// The key waits for a touch that never comes (KEEPALIVE UPNEEDED every 100 ms, CTAPHID_CANCEL honoured)
    /// until the plan is lifted — the fault file removed or changed — and then runs the command as if touched.
    case untouched
    /// No answer at all, ever.
    case stall
    /// KEEPALIVE(PROCESSING) every 100 ms forever, and never the answer.
    case keepAliveForever
}
