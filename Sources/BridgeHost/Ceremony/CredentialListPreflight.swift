import FIDO
import Secrets
import WebAuthn

/// What a key holds of an allow list, learnt before the user acts, as Chromium's GetAssertionTask probes a list it
/// must send in batches: silent assertions (up=false: no touch; no PIN, so no dialog either), the list in batches the
/// key accepts (maxCredentialCountInList, maxMsgSize; libfido2 sends whatever it is given). The ceremony then names
/// the one credential found, and a key that holds none gets only a touch request before it is refused, so each key
/// asks for one touch whatever it holds. A silent assertion still signs, and keys (SoftToken, OpenSK) count it in
/// the credential's signature counter, which need only grow. What the probes find is never shown before the user
/// acts (docs/errors.md, "Credential lists").
struct CredentialListPreflight {
    let device: Device
    let controller: CeremonyController
    let rpID: String
    let clientData: [UInt8]

    /// Room in a request for everything but the list (rp id, client data hash, options, extensions, PIN auth).
    static let fixedRequestBytes = 320
    /// Per entry: the CBOR map {"id": bytes, "type": "public-key"} around the id.
    static let entryOverheadBytes = 24

    /// What a silent look at the key found.
    enum Finding: Equatable {
        /// The key holds this credential; nil when a U2F key said it holds one of the list without naming it.
        case held([UInt8]?)
        /// The key holds none it shows without user verification (credProtect uvRequired hides the others).
        case notHeld
        /// The key would not answer silently (an error, a refusal): nothing is known.
        case unknown
    }

    /// The batches `list` must be sent in to this key, or nil when it goes whole in one request. An id longer
    /// than the key's maximum cannot be its own and is never sent; a list of only such ids has no batches, and the
    /// key then holds none of it.
    func batchesIfNeeded(_ list: [[UInt8]]) -> CredentialBatches? {
        guard !list.isEmpty else { return nil }
        let batches = CredentialBatches(list, info: device.info)
        return batches.fitsOneRequest ? nil : batches
    }

    /// The silent look at `batches`, batch by batch until one names a credential. Nothing of it is shown to the
    /// user or the page.
    func finding(in batches: CredentialBatches) -> Finding {
        (try? controller.using(device) { () throws(FIDOError) in try probe(batches, pin: nil) }) ?? .unknown
    }

    /// As `finding(in:)`, but each silent assertion carries the PIN the user just typed, so the key checks it (a
    /// wrong one fails with FIDO_ERR_PIN_INVALID, to be asked again as in any ceremony) and shows the credentials it
    /// hides from an unverified caller (credProtect uvRequired). Runs inside the ceremony's own
    /// `controller.using(device)`.
    func heldCredential(in batches: CredentialBatches, verifiedWith pin: SecretBytes) throws(FIDOError) -> [UInt8]? {
        if case .held(let id) = try probe(batches, pin: pin) { return id }
        return nil
    }

    /// The silent look of a discoverable sign-in (no allow list): whether the key shows a passkey for the rp
    /// (`.held(nil)`: the request then asks for them all) or none (`.notHeld`).
    func discoverableFinding() -> Finding {
        (try? controller.using(device) { () throws(FIDOError) in try probeDiscoverable(pin: nil) }) ?? .unknown
    }

    /// As `discoverableFinding()` with the PIN the user just typed, which shows the passkeys credProtect hides from
    /// an unverified caller. Runs inside the ceremony's own `controller.using(device)`.
    func holdsDiscoverable(verifiedWith pin: SecretBytes) throws(FIDOError) -> Bool {
        try probeDiscoverable(pin: pin) != .notHeld
    }

    private func probeDiscoverable(pin: SecretBytes?) throws(FIDOError) -> Finding {
        if controller.isCancelled { return .unknown }
        do throws(FIDOError) {
            _ = try device.getAssertions(
                AssertionRequest(clientDataJSON: clientData, rpID: rpID, userPresence: false), pin: pin)
            return .held(nil)
        } catch {
            if error.code == FIDOError.noCredentials { return .notHeld }
            if pin != nil { throw error }
            return .unknown
        }
    }

    /// Without a PIN a batch the key refuses makes the finding unknown; with one, any error but "no credentials"
    /// is the ceremony's.
    private func probe(_ batches: CredentialBatches, pin: SecretBytes?) throws(FIDOError) -> Finding {
        let probe = AssertionRequest(clientDataJSON: clientData, rpID: rpID, userPresence: false)
        var refused = false
        for index in 0..<batches.count {
            if controller.isCancelled { return .unknown }
            do throws(FIDOError) {
                let found = try device.getAssertions(probe, allowing: batches[index], pin: pin)
                if let id = found.first?.credentialID, !id.isEmpty { return .held(id) }
            } catch {
                // libfido2 asks a U2F key check-only (U2F_AUTHENTICATE 0x07) and reports a known key handle so.
                if error.code == FIDOError.userPresenceRequired { return .held(nil) }
                if error.code == FIDOError.noCredentials { continue }
                if pin != nil { throw error }
                refused = true
            }
        }
        return refused ? .unknown : .notHeld
    }
}

/// A credential list split into requests a key accepts; ids longer than the key's maximum cannot be its own
/// and are left out. Kept as ranges of the list, and a batch is sent as a slice of it: splitting a thousand ids
/// builds no new arrays of them.
struct CredentialBatches {
    let ids: [[UInt8]]
    let ranges: [Range<Int>]
    /// Whether ids too long for the key were left out of `ids`.
    let leftOutIDs: Bool

    init(_ list: [[UInt8]], info: AuthenticatorInfo) {
        let maxLength = info.maxCredentialIDLength > 0 ? info.maxCredentialIDLength : Int.max
        // Filtering builds a new list (an allocation and a retain per id), so it is only done when one is too long.
        leftOutIDs = list.contains { $0.count > maxLength }
        ids = leftOutIDs ? list.filter { $0.count <= maxLength } : list
        let maxCount = info.maxCredentialCountInList > 0 ? info.maxCredentialCountInList : Int.max
        let budget = max(
            1, (info.maxMessageSize > 0 ? info.maxMessageSize : 1200) - CredentialListPreflight.fixedRequestBytes)
        var ranges: [Range<Int>] = []
        var start = 0
        var size = 0
        for (index, id) in ids.enumerated() {
            let entry = id.count + CredentialListPreflight.entryOverheadBytes
            if index > start, index - start == maxCount || size + entry > budget {
                ranges.append(start..<index)
                start = index
                size = 0
            }
            size += entry
        }
        if start < ids.count { ranges.append(start..<ids.count) }
        self.ranges = ranges
    }

    var count: Int { ranges.count }

    /// Whether the list goes whole in one request: no batches, no id left out.
    var fitsOneRequest: Bool { count == 1 && !leftOutIDs }

    subscript(index: Int) -> ArraySlice<[UInt8]> { ids[ranges[index]] }
}
