import CBOR
import CTAP
import Cryptography
import Glibc
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A software CTAP 2.1 authenticator: a development and test stand-in for a USB security key.
///
/// It holds its whole persistent state in one file (see `StateFile`) and speaks CTAPHID through libfido2's custom
/// I/O hooks (see `SoftTokenDevice`). Every method and every I/O hook takes the one `monitor` lock, so a
/// `fido_dev_cancel` from another thread is safe while a command waits for the simulated touch.
///
/// "Power cycle" (which clears the pinUvAuthToken, the key agreement key and PIN_AUTH_BLOCKED) happens when the
/// object is created or loaded, or on `powerCycle()`; closing and reopening the libfido2 device does not do it,
/// just as closing a hidraw handle does not unplug a real key.
public final class SoftToken: @unchecked Sendable {
    public let path: String
    let monitor = Condition()
    var state: TokenState
    var store: StateStore
    var session: SessionState
    var signingKeys = SigningKeyCache()
    var faultPlan = FaultPlan.none
    /// Reports seen since `faults` was last set (for `dropConnectionAfterReports` and `unplugAfterReports`).
    var faultReportCount = 0
    /// Whether reports count yet: at once, or from the first report of the command the plan aims at.
    var faultCountingStarted = true
    /// The fault file's text the plan came from (`FaultPlanFile`), nil when none did.
    var faultFileText: String?
    var transport = TransportState()
    /// The token's files as this process last read or wrote them (see `withSharedStateFile`).
    var filesSeen: StateFilesFingerprint
    /// The clock the time since plugging in is read on (authenticatorReset's 10-second window); tests move it.
    var clock: @Sendable () -> ContinuousClock.Instant = { .now }

    init(path: String, state: TokenState, journalSize: Int? = nil) throws(SoftTokenError) {
        self.path = path
        self.state = state
        self.store = StateStore(path: path, journalSize: journalSize, generation: state.counterGeneration)
        self.filesSeen = StateFilesFingerprint(path)
        do { self.session = try SessionState(poweredUpAt: .now) } catch { throw .crypto(error.description) }
    }

    /// Creates a new token file (mode 0600). Fails when the file exists; delete it first to replace it.
    public static func create(at path: String, configuration: SoftTokenConfiguration, pin: String?)
        throws(SoftTokenError) -> SoftToken
    {
        try configuration.validate()
        if access(path, F_OK) == 0 { throw .fileExists(path) }
        var state = TokenState.fresh(configuration: configuration)
        if let pin {
            guard configuration.ctap2 else { throw .invalidConfiguration("a U2F-only key has no PIN") }
            let length = pin.unicodeScalars.count
            guard length >= configuration.minPINLength, pin.utf8.count <= 63 else {
                throw .invalidConfiguration("the PIN must have \(configuration.minPINLength) to 63 bytes")
            }
            state.pinHash = Data(Digest.sha256(Array(pin.utf8)).prefix(16))
            state.settings.pinLength = length
        }
        // A fingerprint reader comes with one finger enrolled, so its built-in UV verifies from the start.
        if configuration.builtInUV && (configuration.bioEnrollment || configuration.bioEnrollmentPreview) {
            state.settings.fingerprints = [
                EnrolledFingerprint(templateID: Data(Digest.randomBytes(4)), name: "Finger 1")
            ]
        }
        // U2F registration always carries an attestation certificate (fido-u2f has no self attestation).
        if configuration.attestation == .certificate || configuration.u2f { try state.makeAttestationCertificate() }
        let token = try SoftToken(path: path, state: state)
        try token.store.save(&token.state)  // also removes a journal or counter file an earlier token left here
        token.filesSeen = StateFilesFingerprint(path)
        return token
    }

    /// Loads an existing token file.
    public convenience init(stateFile path: String) throws(SoftTokenError) {
        let loaded = try StateFile.loadWithJournal(path)
        try self.init(path: path, state: loaded.state, journalSize: loaded.journalSize)
    }

    /// Test-only fault injection (see `FaultPlan`). Setting it restarts the report count.
    public var faults: FaultPlan {
        get { locked { faultPlan } }
        set {
            locked { install(newValue) }
        }
    }

    public var configuration: SoftTokenConfiguration { locked { state.configuration } }

    /// Changes how the simulated user answers presence requests, and saves it.
    public func setPresence(_ mode: PresenceMode) throws(SoftTokenError) {
        try lockedThrowing { () throws(SoftTokenError) in
            state.configuration.presence = mode
            try store.save(&state)
        }
    }

    /// Changes what built-in UV concludes, and saves it.
    public func setUVOutcome(_ outcome: UVOutcome) throws(SoftTokenError) {
        try lockedThrowing { () throws(SoftTokenError) in
            state.configuration.uvOutcome = outcome
            try store.save(&state)
        }
    }

    /// Simulates unplugging and replugging: volatile PIN state is discarded and every open channel dies.
    public func powerCycle() {
        locked {
            if let fresh = try? SessionState(poweredUpAt: clock()) { session = fresh }
            transport = TransportState()
            monitor.broadcast()
        }
    }

    /// What `webauthn-bridge token show` prints: no keys, no PIN hash.
    public func summary() -> SoftTokenSummary {
        locked { SoftTokenSummary(path: path, state: state) }
    }

    // MARK: - Locking

    func locked<T>(_ body: () -> T) -> T {
        monitor.lock()
        defer { monitor.unlock() }
        return body()
    }

    func lockedThrowing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        monitor.lock()
        defer { monitor.unlock() }
        return try body()
    }

    /// Saves after a state change (see `StateStore` for how). A failure to save is reported to the host as
    /// CTAP1_ERR_OTHER, and the in-memory state is rolled back so memory never runs ahead of disk.
    func commit(_ change: (inout TokenState) throws(CTAPStatus) -> Void) throws(CTAPStatus) {
        var updated = state
        try change(&updated)
        do { try store.save(&updated, changedFrom: state) } catch { throw .other }
        state = updated
    }

    /// Bumps one credential's signature counter and saves just the counters (see `StateStore.saveCounters`),
    /// rolling back on failure like `commit`. Returns the new counter.
    func commitSignCount(at index: Int) throws(CTAPStatus) -> UInt32 {
        let previous = state.credentials[index].signCount
        state.credentials[index].signCount &+= 1
        do { try store.saveCounters(&state) } catch {
            state.credentials[index].signCount = previous
            throw .other
        }
        return state.credentials[index].signCount
    }
}
