import CFIDO2
import Synchronization
import Secrets
#if canImport(Glibc)
import Glibc
#endif

/// An open FIDO key. All calls except `cancel()` must come from the libfido2 thread (`FIDOThread`);
/// `cancel()` may come from any thread, which is how a page's abort reaches a key waiting for touch.
public final class Device: @unchecked Sendable {
    public let location: DeviceLocation
    public let info: AuthenticatorInfo
    let handle: OpaquePointer
    private let isOpen = Mutex(true)
    /// Set by `cancel()`: a U2F request (which libfido2 cannot cancel) is dropped when it returns.
    private let cancelRequested = Mutex(false)

    private init(location: DeviceLocation, handle: OpaquePointer, info: AuthenticatorInfo) {
        self.location = location
        self.handle = handle
        self.info = info
    }

    /// Opens the key and reads authenticatorGetInfo.
    public static func open(_ location: DeviceLocation) throws(FIDOError) -> Device {
        guard let dev = fido_dev_new() else { throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_dev_new") }
        var owned: OpaquePointer? = dev
        if var io = location.io {
            let status = fido_dev_set_io_functions(dev, &io)
            if status != FIDO_OK { fido_dev_free(&owned); throw FIDOError(code: status, function: "fido_dev_set_io_functions") }
        }
        let status = fido_dev_open(dev, location.path)
        if status != FIDO_OK { fido_dev_free(&owned); throw FIDOError(code: status, function: "fido_dev_open") }
        var info = AuthenticatorInfo()
        if fido_dev_is_fido2(dev), let cbor = fido_cbor_info_new() {
            if fido_dev_get_cbor_info(dev, cbor) == FIDO_OK { info = AuthenticatorInfo(cbor) }
            var freeable: OpaquePointer? = cbor
            fido_cbor_info_free(&freeable)
        }
        return Device(location: location, handle: dev, info: info)
    }

    deinit {
        close()
        var owned: OpaquePointer? = handle
        fido_dev_free(&owned)
    }

    public func close() {
        let wasOpen = isOpen.withLock { open in defer { open = false }; return open }
        if wasOpen { _ = fido_dev_close(handle) }
    }

    /// Sends CTAPHID_CANCEL; the blocked call then fails with FIDO_ERR_KEEPALIVE_CANCEL.
    public func cancel() {
        cancelRequested.withLock { $0 = true }
        isOpen.withLock { open in if open { _ = fido_dev_cancel(handle) } }
    }

    /// Bounds every later call: libfido2 gives up with FIDO_ERR_RX after `milliseconds`.
    public func setTimeout(milliseconds: Int) {
        _ = fido_dev_set_timeout(handle, Int32(clamping: milliseconds))
    }

    /// Runs a libfido2 call that waits for the user.
    ///
    /// A key pulled out mid-request makes libfido2 fail with whatever status the interrupted step gives (FIDO_ERR_RX,
    /// which also means "timed out", FIDO_ERR_TX, or FIDO_ERR_INTERNAL in the PIN steps): when the key is gone, the
    /// failure is reported as `FIDOError.deviceRemoved`.
    ///
    /// libfido2 1.12 cannot stop a U2F request: `fido_dev_cancel` refuses U2F keys, and its U2F loop repeats the
    /// request every 100 ms for as long as the key answers "test of user presence required", whatever the timeout.
    /// So on a U2F key a cancel takes effect when the call returns (the user touched the key): what the key made
    /// or signed is dropped and the call reports the cancel.
    func awaitingTheUser<T>(_ call: () throws(FIDOError) -> T) throws(FIDOError) -> T {
        let result: T
        do {
            result = try call()
        } catch where !isPresent {
            throw FIDOError(code: FIDOError.deviceRemoved, function: error.function)
        }
        if !isFIDO2, cancelRequested.withLock({ $0 }) {
            throw FIDOError(code: FIDOError.keepaliveCancel, function: "U2F request cancelled while waiting for a touch")
        }
        return result
    }

    /// Whether the key is still plugged in: its hidraw node still exists, or its provider says so.
    public var isPresent: Bool {
        if let stillPresent = location.stillPresent { return stillPresent() }
        return !location.path.hasPrefix("/dev/") || access(location.path, F_OK) == 0
    }

    public var isFIDO2: Bool { fido_dev_is_fido2(handle) }

    /// Talk U2F (CTAP1) to this key from now on, even if it speaks CTAP2, as the old U2F JavaScript API did.
    public func forceU2F() { fido_dev_force_u2f(handle) }
    public var hasPIN: Bool { fido_dev_has_pin(handle) }
    public var hasBuiltInUV: Bool { fido_dev_has_uv(handle) }
    public var supportsPermissions: Bool { fido_dev_supports_permissions(handle) }
    public var supportsCredentialProtection: Bool { fido_dev_supports_cred_prot(handle) }

    public func pinRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        try FIDOError.check(fido_dev_get_retry_count(handle, &retries), "fido_dev_get_retry_count")
        return Int(retries)
    }

    public func uvRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        try FIDOError.check(fido_dev_get_uv_retry_count(handle, &retries), "fido_dev_get_uv_retry_count")
        return Int(retries)
    }

    /// Sets the first PIN on a key that has none.
    public func setPIN(_ pin: SecretBytes) throws(FIDOError) {
        try pin.withCString { (p) throws(FIDOError) in try FIDOError.check(fido_dev_set_pin(handle, p, nil), "fido_dev_set_pin") }
    }
}
