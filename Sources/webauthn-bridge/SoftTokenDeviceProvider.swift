import BridgeHost
import FIDO
import SoftToken
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SoftTokens named by configuration, presented to ceremonies the way USB keys are: a state file that exists
/// is a key plugged in, one that does not (yet) is a key not inserted. Several files (separated by ":") are
/// several keys, which exercises touch-to-select. For development and tests only; every use is logged.
/// It lives in the executable, which hands `make` to the host (`HostMode.run`), so BridgeHost never links SoftToken.
final class SoftTokenDeviceProvider: DeviceProvider {
    static let make: SoftTokenProviding = { paths, log in SoftTokenDeviceProvider(paths: paths, log: log) }

    let paths: [String]
    let log: HostLog
    /// State file path → libfido2 path of the attached token.
    private let attached = Mutex<[String: String]>([:])

    init(paths: [String], log: HostLog) {
        self.paths = paths
        self.log = log
    }

    func locations() -> [DeviceLocation] {
        paths.compactMap { path in
            guard FileManager.default.fileExists(atPath: path) else {
                if let devicePath = attached.withLock({ $0.removeValue(forKey: path) }) {
                    SoftTokenDevice.detach(path: devicePath)
                }
                return nil
            }
            // A file that cannot be loaded is a key in the port that cannot be opened: listed, and its open fails
            // (no token is attached at that path), as a hidraw node without permission does.
            let devicePath = attach(path) ?? "softfido:unloadable:\(fileName(of: path))"
            return DeviceLocation(
                path: devicePath, io: SoftTokenDevice.ioFunctions, manufacturer: "webauthn-bridge",
                product: "SoftToken \(fileName(of: path)) (software token for development and tests)",
                isSoftware: true, stillPresent: { FileManager.default.fileExists(atPath: path) })
        }
    }

    /// Loads and attaches the token under the lock: the keys are listed from two threads during a ceremony (its
    /// own and the `KeyWatch`), and a file loaded twice would be two tokens for one state file.
    private func attach(_ path: String) -> String? {
        attached.withLock { attached in
            if let known = attached[path] { return known }
            do {
                let devicePath = SoftTokenDevice.attach(try SoftToken(stateFile: path))
                attached[path] = devicePath
                log.warn(
                    "SoftToken \(path) attached as \(devicePath): a software authenticator for development and tests only"
                )
                return devicePath
            } catch {
                log.error(
                    "cannot load SoftToken \(path) (a software authenticator for development and tests only): \(error)")
                return nil
            }
        }
    }
}
