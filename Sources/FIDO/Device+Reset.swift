import CFIDO2

/// authenticatorReset (CTAP 2.1 §6.6): deletes every credential on the key, its PIN and its fingerprints, and
/// turns alwaysUv and the minimum PIN length back to the maker's values.
///
/// A key accepts it only within about 10 seconds of being plugged in (FIDO_ERR_NOT_ALLOWED after that: unplug it
/// and plug it in again), and then only after a touch (FIDO_ERR_USER_ACTION_TIMEOUT without one,
/// FIDO_ERR_OPERATION_DENIED when refused). It is `awaitingTheUser`, so `cancel()` ends the wait.
extension Device {
    public func reset() throws(FIDOError) {
        try awaitingTheUser { () throws(FIDOError) in
            try FIDOError.check(fido_dev_reset(handle), "fido_dev_reset")
        }
    }
}
