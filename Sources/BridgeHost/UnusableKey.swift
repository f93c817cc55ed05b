import FIDO

#if canImport(Glibc)
import Glibc
#endif

/// A key that is plugged in but could not be opened, and why, in words for the user. Chromium's own wording for
/// this case does not exist (it cannot see such a key either); the point is not to say "Insert your security key."
/// to someone whose key is in the port.
public struct UnusableKey: Equatable, Sendable {
    public let path: String
    public let name: String
    public let reason: String

    public init(_ location: DeviceLocation, error: FIDOError) {
        path = location.path
        let product = [location.manufacturer, location.product].filter { !$0.isEmpty }.joined(separator: " ")
        name = product.isEmpty ? location.path : product
        reason = Self.reason(location, error: error)
    }

    /// libfido2 reports a failed open as FIDO_ERR_INTERNAL (or RX) whatever the cause, so the cause is found again:
    /// a hidraw node this process may not open lacks the udev rule (uaccess); one it may open is held by another
    /// program or did not answer CTAPHID_INIT.
    public static func reason(_ location: DeviceLocation, error: FIDOError) -> String {
        if location.isSoftware { return "its SoftToken file could not be loaded (see the host log)" }
        if location.path.hasPrefix("/dev/"), access(location.path, R_OK | W_OK) != 0, errno == EACCES {
            return
                "this account may not open \(location.path): the udev rule that gives your session access to security keys is missing"
        }
        return
            "\(location.path) did not answer (\(error)): another program may be using the key, or it needs to be replugged"
    }

    /// What the user is told while the host waits, and when the request ends with no usable key.
    static func message(_ keys: [UnusableKey]) -> String {
        let first = keys[0]
        let more = keys.count > 1 ? " (and \(keys.count - 1) more)" : ""
        return
            "Your security key \(first.name)\(more) is plugged in but cannot be used: \(first.reason). Run `webauthn-bridge doctor` to find out how to fix it."
    }
}
