import CBOR
import CTAP

/// authenticatorConfig subcommands (CTAP 2.1 §6.11).
enum ConfigSubcommand: Int {
    case enableEnterpriseAttestation = 0x01
    case toggleAlwaysUV = 0x02
    case setMinPINLength = 0x03
}

extension SoftToken {
    /// Whether this token answers authenticatorConfig (a CTAP 2.1 key whose profile has it).
    var hasConfig: Bool { state.configuration.ctap21 && state.configuration.authenticatorConfig }

    /// How many RP IDs one setMinPINLength may name (getInfo maxRPIDsForSetMinPINLength).
    static let maxRPIDsForSetMinPINLength = 8

    /// authenticatorConfig (§6.11): toggleAlwaysUv and setMinPINLength; enterprise attestation is not offered.
    /// A token protected by a PIN or built-in UV, or with alwaysUv on, needs a pinUvAuthToken with the `acfg`
    /// permission, over 32 × 0xFF ‖ 0x0D ‖ subCommand ‖ subCommandParams.
    func authenticatorConfig(_ p: CBOR) throws(CTAPStatus) -> CBOR? {
        guard let raw = try p.int(1) else { throw .missingParameter }
        guard let subcommand = ConfigSubcommand(rawValue: raw), subcommand != .enableEnterpriseAttestation else {
            throw .invalidSubcommand
        }
        let subParameters = try p.map(2)
        if let param = try p.bytes(4) {
            var message = [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue, UInt8(raw)]
            if let subParameters { message += subParameters.encode() }
            try verifyPinUvAuthParam(
                param, protocolVersion: try p.int(3), message: message, permission: Permission.authenticatorConfig,
                rpID: nil)
        } else if isProtectedByUV || alwaysUV {
            throw .puatRequired
        }
        switch subcommand {
        case .toggleAlwaysUV:
            let enabled = !alwaysUV
            try commit { $0.settings.alwaysUV = enabled }
        case .setMinPINLength:
            try setMinPINLength(subParameters)
        case .enableEnterpriseAttestation:
            throw .invalidSubcommand
        }
        return nil
    }

    /// setMinPINLength (§6.11.4): raises the minimum (never lowers it), adds RP IDs allowed to read it, and forces
    /// a PIN change when asked or when the current PIN is now too short. libfido2 sends no parameters at all when
    /// it has no PIN to authenticate with: that changes nothing.
    private func setMinPINLength(_ subParameters: CBOR?) throws(CTAPStatus) {
        let newLength = try subParameters?.int(1) ?? minPINLength
        var rpIDs: [String] = []
        for item in try subParameters?.array(2) ?? [] {
            guard let rpID = item.textValue else { throw .cborUnexpectedType }
            rpIDs.append(rpID)
        }
        let force = try subParameters?.bool(3) ?? false
        guard newLength >= minPINLength, newLength <= 63 else { throw .pinPolicyViolation }
        guard rpIDs.count <= Self.maxRPIDsForSetMinPINLength else { throw .keyStoreFull }
        if force && state.pinHash == nil { throw .pinNotSet }
        let tooShort = state.pinHash != nil && (state.settings.pinLength ?? 0) < newLength
        let known = minPINLengthRPIDs
        try commit { s in
            if newLength != s.configuration.minPINLength || s.settings.minPINLength != nil {
                s.settings.minPINLength = newLength
            }
            s.settings.minPINLengthRPIDs += rpIDs.filter { !known.contains($0) }
            if force || tooShort { s.settings.forcePINChange = true }
        }
    }
}
