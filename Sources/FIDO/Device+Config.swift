import CFIDO2
import Secrets

#if canImport(Glibc)
import Glibc
#endif

/// authenticatorConfig (CTAP 2.1 §6.11) through libfido2's fido_dev_* config calls: alwaysUv, the minimum PIN
/// length with the sites allowed to read it, and a forced PIN change. Each call gets a pinUvAuthToken with the
/// `acfg` permission from `pin`; `pin` may be nil only on a key without a PIN.
///
/// libfido2 sends a subcommand's parameters only together with a pinUvAuthParam, so on a key without a PIN or
/// built-in UV setMinPINLength reaches the key empty and changes nothing: ask for a PIN first.
extension Device {
    /// Whether the key has authenticatorConfig (getInfo option authnrCfg).
    public var supportsConfig: Bool { info.options["authnrCfg"] == true }
    /// Whether it can turn alwaysUv on and off (getInfo lists the option at all).
    public var supportsAlwaysUV: Bool { supportsConfig && info.options["alwaysUv"] != nil }
    /// Whether it has setMinPINLength (getInfo option setMinPINLength).
    public var supportsMinPINLength: Bool { supportsConfig && info.options["setMinPINLength"] == true }

    /// authenticatorGetInfo read again: `info` is what the key said when it was opened, before any change.
    public func readInfo() throws(FIDOError) -> AuthenticatorInfo {
        guard let cbor = fido_cbor_info_new() else {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_cbor_info_new")
        }
        var owned: OpaquePointer? = cbor
        defer { fido_cbor_info_free(&owned) }
        try FIDOError.check(fido_dev_get_cbor_info(handle, cbor), "fido_dev_get_cbor_info")
        return AuthenticatorInfo(cbor)
    }

    /// Turns alwaysUv on or off. The command only toggles, so the key's current value is read first; returns
    /// false when it already had the wanted value (nothing sent).
    @discardableResult
    public func setAlwaysUV(_ enabled: Bool, pin: SecretBytes?) throws(FIDOError) -> Bool {
        guard try readInfo().alwaysUV != enabled else { return false }
        try Self.withOptionalCString(pin) { (p) throws(FIDOError) in
            try FIDOError.check(fido_dev_toggle_always_uv(handle, p), "fido_dev_toggle_always_uv")
        }
        return true
    }

    /// Raises the minimum PIN length (a key refuses to lower it: FIDO_ERR_PIN_POLICY_VIOLATION). A key whose
    /// current PIN is shorter then asks for a new one before its next use.
    public func setMinimumPINLength(_ length: Int, pin: SecretBytes?) throws(FIDOError) {
        guard length > 0, length <= 255 else {
            throw FIDOError(code: FIDO_ERR_INVALID_ARGUMENT, function: "fido_dev_set_pin_minlen")
        }
        try Self.withOptionalCString(pin) { (p) throws(FIDOError) in
            try FIDOError.check(fido_dev_set_pin_minlen(handle, length, p), "fido_dev_set_pin_minlen")
        }
    }

    /// Lets these sites read the minimum PIN length (the minPinLength extension) when they register.
    public func allowMinimumPINLength(to rpIDs: [String], pin: SecretBytes?) throws(FIDOError) {
        guard !rpIDs.isEmpty else {
            throw FIDOError(code: FIDO_ERR_INVALID_ARGUMENT, function: "fido_dev_set_pin_minlen_rpid")
        }
        let pointers: [UnsafePointer<CChar>?] = rpIDs.map { UnsafePointer(strdup($0)) }
        defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
        try Self.withOptionalCString(pin) { (p) throws(FIDOError) in
            let status = pointers.withUnsafeBufferPointer {
                fido_dev_set_pin_minlen_rpid(handle, $0.baseAddress, $0.count, p)
            }
            try FIDOError.check(status, "fido_dev_set_pin_minlen_rpid")
        }
    }

    /// Makes the key refuse its PIN until it is changed (getInfo forcePINChange).
    public func forcePINChange(pin: SecretBytes?) throws(FIDOError) {
        try Self.withOptionalCString(pin) { (p) throws(FIDOError) in
            try FIDOError.check(fido_dev_force_pin_change(handle, p), "fido_dev_force_pin_change")
        }
    }

    static func withOptionalCString<R>(_ secret: SecretBytes?, _ body: (UnsafePointer<CChar>?) throws(FIDOError) -> R)
        throws(FIDOError) -> R
    {
        guard let secret else { return try body(nil) }
        return try secret.withCString { (p) throws(FIDOError) in try body(p) }
    }
}
