import FIDO
import NativeMessaging
import WebAuthn

/// The answer to an `info` request: what is running and what it can reach, for the extension's popup
/// and for bug reports. Devices are listed from discovery only (no key is opened for this); a key a ceremony has
/// opened since it was plugged in also carries what it can do (`KeyCapabilityCache`).
public enum HostInfo {
    public static let version = "0.1.0"

    /// `inboundFrameBytes`: the longest frame this host reads (its configuration's), by which the extension decides
    /// what to hand to the browser's own WebAuthn instead.
    public static func report(
        devices: any DeviceProvider, log: HostLog, inboundFrameBytes: Int = FrameLimits.defaultInbound
    ) -> JSONValue {
        report(devices: devices, log: log, seen: .shared, inboundFrameBytes: inboundFrameBytes)
    }

    /// `seen`: what the keys opened by a ceremony can do, the one thing `info` says about a key beyond discovery.
    static func report(
        devices: any DeviceProvider, log: HostLog, seen: KeyCapabilityCache,
        inboundFrameBytes: Int = FrameLimits.defaultInbound
    ) -> JSONValue {
        let locations = devices.locations()
        let summaries = seen.summaries(listed: locations)
        let list: [JSONValue] = locations.map { d in
            var fields: [(String, JSONValue)] = [
                ("path", .string(d.path)), ("manufacturer", .string(d.manufacturer)), ("product", .string(d.product)),
                ("vendorId", .number(Double(d.vendorID))), ("productId", .number(Double(d.productID))),
                ("kind", .string(d.isSoftware ? "software token" : "security key")),
            ]
            if let summary = summaries[d.path] { fields.append(("capabilities", .string(summary))) }
            return .object(fields)
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
            ("maxInboundFrameBytes", .number(Double(inboundFrameBytes))),
        ])
    }

    /// `PublicKeyCredential.getClientCapabilities()` keys this host makes true (L3 §5.1.7); the extension
    /// reports every key not listed here as false, except the ones only the browser can answer.
    static var capabilities: [String] {
        supportedExtensions.map { "extension:" + $0 }
    }

    /// WebAuthn extension identifiers the host processes (unknown ones are ignored, as browsers do).
    static let supportedExtensions = [
        "credProps", "prf", "hmacCreateSecret", "hmacGetSecret", "credentialProtectionPolicy", "credBlob",
        "getCredBlob",
        "minPinLength", "largeBlob",
    ]
}
