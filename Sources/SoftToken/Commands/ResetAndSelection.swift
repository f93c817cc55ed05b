import CBOR
import CTAP

extension SoftToken {
    /// How long after plugging in a key accepts authenticatorReset (CTAP 2.1 §6.6 allows "within 10 seconds").
    static let resetWindow = Duration.seconds(10)

    /// authenticatorReset (§6.6): refused once the key has been plugged in for more than 10 seconds, then a touch;
    /// everything goes but the attestation key (and the configuration it was made with: `OwnerSettings` goes).
    func reset(userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        // Measured when the request comes, not after the touch the re-run follows.
        if !userTouched, clock() - session.poweredUpAt > Self.resetWindow { throw .notAllowed }
        try collectUserPresence(userTouched: userTouched)
        var fresh = TokenState.fresh(configuration: state.configuration)
        fresh.attestationKey = state.attestationKey
        fresh.attestationCertificate = state.attestationCertificate
        try commit { $0 = fresh }
        do { session = try SessionState(poweredUpAt: session.poweredUpAt) } catch { throw .other }
        return nil
    }

    /// authenticatorSelection (§6.9): a touch, which tells the platform which of several keys the user means.
    func selection(userTouched: Bool) throws(CTAPStatus) -> CBOR? {
        try collectUserPresence(userTouched: userTouched)
        return nil
    }
}
