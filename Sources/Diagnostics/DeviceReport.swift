import BridgeHost
import FIDO
import WebAuthn

/// What `webauthn-bridge devices` shows for one key: everything libfido2 learns from discovery and getInfo,
/// plus PIN/UV retries. Keys are opened on the libfido2 thread.
public struct DeviceReport: Sendable {
    public let location: DeviceLocation
    public let info: AuthenticatorInfo?
    public let pinRetries: Int?
    public let uvRetries: Int?
    /// Why the key could not be opened, when it could not.
    public let problem: String?

    public static func all(
        configuration: HostConfiguration, log: HostLog,
        softTokens: SoftTokenProviding
    ) -> [DeviceReport] {
        let provider = HostMode.deviceProvider(configuration, log: log, softTokens: softTokens)
        let thread = FIDOThread(logSink: nil)
        return thread.sync { provider.locations().map(report) }
    }

    public static func report(_ location: DeviceLocation) -> DeviceReport {
        do {
            let device = try Device.open(location)
            defer { device.close() }
            let pin = device.info.hasClientPIN ? try? device.pinRetries() : nil
            let uv = device.info.hasBuiltInUV ? try? device.uvRetries() : nil
            return DeviceReport(location: location, info: device.info, pinRetries: pin, uvRetries: uv, problem: nil)
        } catch {
            // A key's node: why it could not be opened, in the words the host uses (udev rule, held, no answer).
            let problem = location.isSoftware ? "\(error)" : UnusableKey.reason(location, error: error)
            return DeviceReport(location: location, info: nil, pinRetries: nil, uvRetries: nil, problem: problem)
        }
    }

    public var kind: String { location.isSoftware ? "software token — for development and tests only" : "security key" }

    /// The AAGUID in its usual 8-4-4-4-12 form.
    public var aaguid: String? {
        guard let bytes = info?.aaguid, bytes.count == 16 else { return nil }
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let cuts = [8, 12, 16, 20]
        var out = ""
        for (i, c) in hex.enumerated() {
            if cuts.contains(i) { out += "-" }
            out.append(c)
        }
        return out
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("path", .string(location.path)), ("kind", .string(kind)),
            ("manufacturer", .string(location.manufacturer)), ("product", .string(location.product)),
            ("vendorId", .number(Double(location.vendorID))), ("productId", .number(Double(location.productID))),
        ]
        if let problem { fields.append(("problem", .string(problem))) }
        if let info {
            fields += [
                ("versions", .array(info.versions.map(JSONValue.string))),
                ("aaguid", aaguid.map(JSONValue.string) ?? .null),
                ("options", .object(info.options.sorted { $0.key < $1.key }.map { ($0.key, .bool($0.value)) })),
                ("extensions", .array(info.extensions.map(JSONValue.string))),
                ("algorithms", .array(info.supportedAlgorithms.map { .number(Double($0)) })),
                ("pinProtocols", .array(info.pinProtocols.map { .number(Double($0)) })),
                ("firmwareVersion", .number(Double(info.firmwareVersion))),
                ("minPINLength", .number(Double(info.minPINLength))),
                ("forcePINChange", .bool(info.forcePINChange)),
            ]
        }
        if let info {
            let capabilities = KeyCapabilities(info: info)
            fields.append(("capabilities", .string(capabilities.summary)))
            fields.append(("bridgeBehaviour", .array(capabilities.bridgeBehaviour.map(JSONValue.string))))
        }
        fields.append(("pinRetries", pinRetries.map { .number(Double($0)) } ?? .null))
        fields.append(("uvRetries", uvRetries.map { .number(Double($0)) } ?? .null))
        return .object(fields)
    }

    public var text: String {
        var lines = ["\(location.path)  (\(kind))", "  \(location.manufacturer) \(location.product)"]
        if location.vendorID != 0 || location.productID != 0 {
            lines.append("  USB id: \(Self.hex4(location.vendorID)):\(Self.hex4(location.productID))")
        }
        if let problem { lines.append("  cannot open: \(problem)") }
        if let info {
            let capabilities = KeyCapabilities(info: info)
            lines.append("  \(capabilities.summary)")
            lines += capabilities.bridgeBehaviour.map { "    the bridge \($0)" }
        }
        if let info, info.isFIDO2 {
            lines.append(
                "  CTAP: \(info.versions.joined(separator: ", "))   AAGUID: \(aaguid ?? "-")   firmware: \(info.firmwareVersion)"
            )
            lines.append(
                "  options: "
                    + info.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            lines.append("  extensions: \(info.extensions.joined(separator: ", "))")
            lines.append(
                "  algorithms: \(info.supportedAlgorithms.map { AlgorithmSelection.name(of: $0) }.joined(separator: ", "))   PIN protocols: \(info.pinProtocols)"
            )
        }
        guard problem == nil else { return lines.joined(separator: "\n") }  // nothing is known of its PIN
        let noPIN = info.map { !$0.supportsClientPIN } == true ? "not supported by this key" : "not set"
        // CTAP 2.1 keys say their minimum PIN length and whether the PIN must be changed first (getInfo 0x0C, 0x0D).
        var rules = ""
        if let info, info.minPINLength > 0 { rules += ", at least \(info.minPINLength) characters" }
        if info?.forcePINChange == true { rules += "; must be changed first (`webauthn-bridge key pin change`)" }
        lines.append(
            "  PIN: \(pinRetries.map { "set, \($0) attempts left" } ?? noPIN)\(rules)"
                + (uvRetries.map { "   built-in UV: \($0) attempts left" } ?? ""))
        return lines.joined(separator: "\n")
    }

    static func hex4(_ v: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
