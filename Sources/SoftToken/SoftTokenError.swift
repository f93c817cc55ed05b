import CTAP

/// Why a SoftToken could not be created, loaded or saved. Protocol-level failures are `CTAPStatus` answers to
/// the host, never these; these are for the program that owns the state file.
public enum SoftTokenError: Error, Sendable, CustomStringConvertible, Equatable {
    case fileExists(String)
    case cannotRead(path: String, errno: Int32)
    case cannotWrite(path: String, step: String, errno: Int32)
    case corruptState(path: String, reason: String)
    case unsupportedVersion(path: String, version: Int)
    case invalidConfiguration(String)
    case crypto(String)

    public var description: String {
        switch self {
        case .fileExists(let path):
            return "\(path) already exists (use --force to overwrite this development/test token)"
        case .cannotRead(let path, let code):
            return "cannot read SoftToken state \(path): \(String(cString: strerror(code)))"
        case .cannotWrite(let path, let step, let code):
            return "cannot write SoftToken state \(path) (\(step)): \(String(cString: strerror(code)))"
        case .corruptState(let path, let reason):
            return "SoftToken state \(path) is not valid: \(reason)"
        case .unsupportedVersion(let path, let version):
            return
                "SoftToken state \(path) has format version \(version); this build reads version \(TokenState.formatVersion)"
        case .invalidConfiguration(let reason):
            return "invalid SoftToken configuration: \(reason)"
        case .crypto(let reason):
            return "SoftToken crypto failure: \(reason)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
