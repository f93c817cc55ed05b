import FIDO
import WebAuthn

/// The answer to an `info` request: what is running and what it can reach, for the extension's popup
/// and for bug reports. Devices are listed from discovery only (no key is opened for this).
public enum HostInfo {
    public static let version = "0.1.0"

    public static func report(devices: any DeviceProvider, log: HostLog) -> JSONValue {
        let list: [JSONValue] = devices.locations().map { d in
            .object([("path", .string(d.path)), ("manufacturer", .string(d.manufacturer)), ("product", .string(d.product)),
                     ("vendorId", .number(Double(d.vendorID))), ("productId", .number(Double(d.productID))),
                     ("kind", .string(d.isSoftware ? "software token" : "security key"))])
        }
        return .object([
            ("version", .string(version)),
            ("protocol", .number(Double(ProtocolVersion.current))),
            ("libfido2", .string(FIDOLibrary.version)),
            ("devices", .array(list)),
            ("logPath", .string(log.path)),
            ("logLevel", .string(log.level.rawValue)),
            ("algorithms", .array(RegistrationCeremony.hostAlgorithms.sorted().map { .number(Double($0)) })),
            ("capabilities", .object(capabilities.map { ($0, .bool(true)) })),
        ])
    }

    /// `PublicKeyCredential.getClientCapabilities()` keys this host makes true (L3 §5.1.7); the extension
    /// reports every key not listed here as false, except the ones only the browser can answer.
    static var capabilities: [String] {
        supportedExtensions.map { "extension:" + $0 }
    }

    /// WebAuthn extension identifiers the host processes (unknown ones are ignored, as browsers do).
    static let supportedExtensions = [
        "credProps", "prf", "hmacCreateSecret", "hmacGetSecret", "credentialProtectionPolicy", "credBlob", "getCredBlob",
        "minPinLength", "largeBlob",
    ]
}
