import BridgeHost
import FIDO

/// The keys as the host finds them (USB keys through libfido2, or the SoftTokens that
/// `WEBAUTHN_BRIDGE_SOFT_TOKEN` names), and the one libfido2 thread every call on them runs on.
public struct KeyRing: Sendable {
    let provider: any DeviceProvider
    let thread: FIDOThread

    public init(configuration: HostConfiguration, log: HostLog, softTokens: SoftTokenProviding) {
        provider = HostMode.deviceProvider(configuration, log: log, softTokens: softTokens)
        thread = FIDOThread(logSink: nil)
    }

    public func locations() -> [DeviceLocation] {
        let provider = provider
        return thread.sync { provider.locations() }
    }

    /// The key `path` names, or the only key plugged in.
    public func select(_ path: String?) throws(KeyToolError) -> DeviceLocation {
        let found = locations()
        if let path {
            guard let location = found.first(where: { $0.path == path }) else {
                throw .unknownDevice(path, found.map(\.path))
            }
            return location
        }
        guard let only = found.first else { throw .noKey }
        guard found.count == 1 else { throw .severalKeys(found.map(\.path)) }
        return only
    }

    /// Runs `body` on the libfido2 thread with the key open, and closes it afterwards.
    func withDevice<T: Sendable>(_ location: DeviceLocation, _ body: @escaping @Sendable (Device) throws -> T)
        throws -> T
    {
        let outcome: Result<T, any Error> = thread.sync {
            Result {
                let device = try Device.open(location)
                defer { device.close() }
                return try body(device)
            }
        }
        return try outcome.get()
    }
}
