/// lastEnrollSampleStatus (CTAP 2.1 §6.7.4): what a fingerprint reader says about one sample during enrollment.
/// The one list: SoftToken's simulated finger answers with it, the host and `key fingerprints add` read it.
public enum EnrollSampleStatus: UInt8, Sendable, CaseIterable {
    case good = 0x00
    case tooHigh = 0x01
    case tooLow = 0x02
    case tooLeft = 0x03
    case tooRight = 0x04
    case tooFast = 0x05
    case tooSlow = 0x06
    case poorQuality = 0x07
    case tooSkewed = 0x08
    case tooShort = 0x09
    case mergeFailure = 0x0A
    case exists = 0x0B
    case databaseFull = 0x0C
    case noUserActivity = 0x0D
    case noUserPresenceTransition = 0x0E

    /// The spec's name without its CTAP2_ENROLL_FEEDBACK_ prefix (`FP_TOO_FAST`).
    public var specName: String {
        switch self {
        case .good: "FP_GOOD"
        case .tooHigh: "FP_TOO_HIGH"
        case .tooLow: "FP_TOO_LOW"
        case .tooLeft: "FP_TOO_LEFT"
        case .tooRight: "FP_TOO_RIGHT"
        case .tooFast: "FP_TOO_FAST"
        case .tooSlow: "FP_TOO_SLOW"
        case .poorQuality: "FP_POOR_QUALITY"
        case .tooSkewed: "FP_TOO_SKEWED"
        case .tooShort: "FP_TOO_SHORT"
        case .mergeFailure: "FP_MERGE_FAILURE"
        case .exists: "FP_EXISTS"
        case .databaseFull: "FP_DATABASE_FULL"
        case .noUserActivity: "NO_USER_ACTIVITY"
        case .noUserPresenceTransition: "NO_UP_TRANSITION"
        }
    }
}
