import CFIDO2
import Synchronization

/// Attaches SoftTokens to libfido2 through its custom I/O hooks.
///
/// libfido2's `open` hook receives only the path, and Swift 6 C callbacks cannot capture context, so tokens are
/// found through a global registry keyed by path. Each `fido_dev_open` gets its own `DeviceConnection` (retained
/// for libfido2 as the opaque handle and released by `close`), like a hidraw file descriptor to the same key.
///
/// Usage (exactly what the host does):
/// ```swift
/// let path = SoftTokenDevice.attach(token)            // "softfido:soft-1"
/// let dev = fido_dev_new()
/// var io = SoftTokenDevice.ioFunctions
/// fido_dev_set_io_functions(dev, &io)
/// fido_dev_open(dev, path)                             // sends CTAPHID_INIT + getInfo
/// ```
/// The `softfido:` prefix matters: libfido2 hands any `nfc:` path to its NFC backend, bypassing the hooks.
public enum SoftTokenDevice {
    public static let pathPrefix = "softfido:"

    private static let registry = Mutex<(tokens: [String: SoftToken], counter: Int)>(([:], 0))

    /// Registers the token under a fresh name; returns the path ("softfido:NAME") to hand to fido_dev_open.
    public static func attach(_ token: SoftToken) -> String {
        registry.withLock { registry in
            registry.counter += 1
            let path = "\(pathPrefix)soft-\(registry.counter)"
            registry.tokens[path] = token
            return path
        }
    }

    /// Forgets the path. Devices already open keep working until closed; new opens fail.
    public static func detach(path: String) {
        _ = registry.withLock { $0.tokens.removeValue(forKey: path) }
    }

    static func token(at path: String) -> SoftToken? {
        registry.withLock { $0.tokens[path] }
    }

    /// The four io callbacks to install with fido_dev_set_io_functions before fido_dev_open(path).
    public static var ioFunctions: fido_dev_io_t {
        fido_dev_io_t(open: open, close: close, read: read, write: write)
    }

    // The same callbacks, for tests and fuzz targets that speak CTAPHID to a token as libfido2 does
    // (fido_dev_io_t's members are optional; these are not).
    public static let open: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? = softTokenOpen
    public static let close: @convention(c) (UnsafeMutableRawPointer?) -> Void = softTokenClose
    public static let read:
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int, Int32) -> Int32 = softTokenRead
    public static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 =
        softTokenWrite
}

private func connection(_ handle: UnsafeMutableRawPointer?) -> DeviceConnection? {
    guard let handle else { return nil }
    return Unmanaged<DeviceConnection>.fromOpaque(handle).takeUnretainedValue()
}

private func softTokenOpen(_ path: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? {
    guard let path, let token = SoftTokenDevice.token(at: String(cString: path)) else { return nil }
    return Unmanaged.passRetained(DeviceConnection(token: token)).toOpaque()
}

private func softTokenClose(_ handle: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    let unmanaged = Unmanaged<DeviceConnection>.fromOpaque(handle)
    let connection = unmanaged.takeUnretainedValue()
    connection.token.close(connection)
    unmanaged.release()
}

private func softTokenRead(
    _ handle: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int, _ ms: Int32
) -> Int32 {
    guard let connection = connection(handle), let buffer, length > 0 else { return -1 }
    guard let report = connection.token.nextReport(on: connection, milliseconds: Int(ms)) else { return -1 }
    let count = min(length, report.count)
    _ = UnsafeMutableBufferPointer(start: buffer, count: count).update(fromContentsOf: report.prefix(count))
    return Int32(count)
}

private func softTokenWrite(_ handle: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<UInt8>?, _ length: Int) -> Int32
{
    guard let connection = connection(handle), let buffer, length > 0 else { return -1 }
    let report = Array(UnsafeBufferPointer(start: buffer, count: length))
    return connection.token.receive(report: report, on: connection) ? Int32(length) : -1
}
