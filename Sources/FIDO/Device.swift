import CFIDO2
import Secrets
import Synchronization
import Threading

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
    /// Set by `cancel()`: a U2F request (which libfido2 cannot cancel) is interrupted, and what it returns dropped.
    private let cancelRequested = Mutex(false)
    /// The thread blocked in a U2F request, while one is (see `U2FInterruption`).
    private let u2fWaiter = Mutex<pthread_t?>(nil)

    private init(location: DeviceLocation, handle: OpaquePointer, info: AuthenticatorInfo) {
        self.location = location
        self.handle = handle
        self.info = info
    }

    /// Opens the key and reads authenticatorGetInfo; `timeoutMilliseconds` bounds the open's own exchanges (none:
    /// libfido2 waits as long as the key takes).
    public static func open(_ location: DeviceLocation, timeoutMilliseconds: Int? = nil) throws(FIDOError) -> Device {
        if location.io == nil, location.path.hasPrefix("/dev/"), HIDRawNode.isHeld(location.path) {
            throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_dev_open (held by another program)")
        }
        guard let dev = fido_dev_new() else { throw FIDOError(code: FIDO_ERR_INTERNAL, function: "fido_dev_new") }
        var owned: OpaquePointer? = dev
        if var io = location.io {
            let status = fido_dev_set_io_functions(dev, &io)
            if status != FIDO_OK {
                fido_dev_free(&owned)
                throw FIDOError(code: status, function: "fido_dev_set_io_functions")
            }
        }
        if let timeoutMilliseconds { _ = fido_dev_set_timeout(dev, Int32(clamping: timeoutMilliseconds)) }
        let status = fido_dev_open(dev, location.path)
        if status != FIDO_OK {
            fido_dev_free(&owned)
            throw FIDOError(code: status, function: "fido_dev_open")
        }
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
        let wasOpen = isOpen.withLock { open in
            defer { open = false }
            return open
        }
        if wasOpen { _ = fido_dev_close(handle) }
    }

    /// Sends CTAPHID_CANCEL; the blocked call then fails with FIDO_ERR_KEEPALIVE_CANCEL. A U2F key has no such
    /// command: the thread blocked in its request is interrupted instead (`U2FInterruption`).
    public func cancel() {
        cancelRequested.withLock { $0 = true }
        isOpen.withLock { open in if open { _ = fido_dev_cancel(handle) } }
        u2fWaiter.withLock { thread in if let thread { U2FInterruption.interrupt(thread) } }
    }

    /// Bounds every later call: libfido2 gives up with FIDO_ERR_RX after `milliseconds`.
    public func setTimeout(milliseconds: Int) {
        _ = fido_dev_set_timeout(handle, Int32(clamping: milliseconds))
    }

    /// Gives the next call the time left until `deadline`: rounded up, because libfido2 must not give up before the
    /// deadline (its FIDO_ERR_RX would not read as a timeout), and at least 1 ms, since 0 is no wait.
    public func setTimeout(until deadline: Deadline) {
        setTimeout(milliseconds: max(1, deadline.remainingMilliseconds))
    }

    /// Runs a libfido2 call that waits for the user.
    ///
    /// A key pulled out mid-request makes libfido2 fail with whatever status the interrupted step gives (FIDO_ERR_RX,
    /// which also means "timed out", FIDO_ERR_TX, or FIDO_ERR_INTERNAL in the PIN steps): when the key is gone, the
    /// failure is reported as `FIDOError.deviceRemoved`.
    ///
    /// libfido2 1.12 cannot cancel a U2F request, so a cancel interrupts the thread making it (`U2FInterruption`):
    /// the call then fails (FIDO_ERR_RX), or, if the user touched the key just before, returns what the key made or
    /// signed, which is dropped. Either way the call reports the cancel.
    func awaitingTheUser<T>(_ call: () throws(FIDOError) -> T) throws(FIDOError) -> T {
        let u2f = !isFIDO2
        if u2f {
            _ = U2FInterruption.installed
            U2FInterruption.unblockOnThisThread()
            u2fWaiter.withLock { $0 = pthread_self() }
        }
        defer { if u2f { u2fWaiter.withLock { $0 = nil } } }
        let result: T
        do {
            if u2f { try throwIfCancelled() }
            result = try call()
        } catch  where !isPresent {
            throw FIDOError(code: FIDOError.deviceRemoved, function: error.function)
        } catch {
            if u2f { try throwIfCancelled() }
            throw error
        }
        if u2f { try throwIfCancelled() }
        return result
    }

    private func throwIfCancelled() throws(FIDOError) {
        if cancelRequested.withLock({ $0 }) {
            throw FIDOError(
                code: FIDOError.keepaliveCancel, function: "U2F request cancelled while waiting for a touch")
        }
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

    /// Which plugging-in of a key this is: its path, and for a hidraw node the node's inode number, which devtmpfs
    /// renews each time the node is made, so a key pulled out and plugged in again at a reused /dev/hidrawN is a new
    /// plugging. Reinserting a key is its power cycle (what CTAP2_ERR_PIN_AUTH_BLOCKED asks for).
    public var plugging: String {
        guard location.path.hasPrefix("/dev/") else { return location.path }
        var node = stat()
        return stat(location.path, &node) == 0 ? "\(location.path)#\(node.st_ino)" : location.path
    }

    /// The PIN attempts the key has left before it is blocked for good (getPINRetries); 0 is blocked.
    public func pinRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        try FIDOError.check(fido_dev_get_retry_count(handle, &retries), "fido_dev_get_retry_count")
        return Int(retries)
    }

    /// The built-in UV attempts the key has left (getUVRetries); 0 is blocked, and the PIN is the fallback.
    public func uvRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        try FIDOError.check(fido_dev_get_uv_retry_count(handle, &retries), "fido_dev_get_uv_retry_count")
        return Int(retries)
    }

    /// Sets the first PIN on a key that has none.
    public func setPIN(_ pin: SecretBytes) throws(FIDOError) {
        try pin.withCString { (p) throws(FIDOError) in
            try FIDOError.check(fido_dev_set_pin(handle, p, nil), "fido_dev_set_pin")
        }
    }
}
