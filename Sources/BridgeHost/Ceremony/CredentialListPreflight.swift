import FIDO
import Secrets
import WebAuthn

/// Long allow/exclude lists (at most 64 distinct ids: `CredentialDescriptorList`), handled as Chromium does: a key
/// accepts only a few credential ids per request (maxCredentialCountInList, and its maxMsgSize), and libfido2
/// sends whatever it is given. So the list is sent in batches the key accepts, as silent assertions (up=false: no
/// touch, no signature counter), to learn which credential the key holds; the real ceremony then names only that
/// one. What the probes find is never shown before the user acts (docs/errors.md, "Credential lists").
struct CredentialListPreflight {
    let device: Device
    let controller: CeremonyController
    let rpID: String
    let clientData: [UInt8]

    /// Room in a request for everything but the list (rp id, client data hash, options, extensions, PIN auth).
    static let fixedRequestBytes = 320
    /// Per entry: the CBOR map {"id": bytes, "type": "public-key"} around the id.
    static let entryOverheadBytes = 24

    /// The batches `list` must be sent in to this key, or nil when it goes whole in one request. An id longer
    /// than the key's maximum cannot be its own and is never sent; a list of only such ids has no batches, and the
    /// key then holds none of it.
    func batchesIfNeeded(_ list: [[UInt8]]) -> CredentialBatches? {
        guard !list.isEmpty else { return nil }
        let batches = CredentialBatches(list, info: device.info)
        return batches.count == 1 && !batches.leftOutIDs ? nil : batches
    }

    /// The first credential of `batches` the key holds, or nil when it holds none. The key's refusals are
    /// taken as "none there": nothing of this is shown to the user or the page.
    func heldCredential(in batches: CredentialBatches) -> [UInt8]? {
        (try? controller.using(device) { () throws(FIDOError) in try probe(batches, pin: nil) }) ?? nil
    }

    /// As `heldCredential(in:)`, but each silent assertion carries the PIN the user just typed, so the key checks
    /// it (a wrong one fails with FIDO_ERR_PIN_INVALID, to be asked again as in any ceremony) and shows the
    /// credentials it hides from an unverified caller (credProtect uvRequired). Runs inside the ceremony's own
    /// `controller.using(device)`.
    func heldCredential(in batches: CredentialBatches, verifiedWith pin: SecretBytes) throws(FIDOError) -> [UInt8]? {
        try probe(batches, pin: pin)
    }

    /// Silent assertions (up=false: no touch, no signature counter) batch by batch, until one names a credential.
    /// Without a PIN a failed batch counts as holding nothing; with one, only FIDO_ERR_NO_CREDENTIALS does.
    private func probe(_ batches: CredentialBatches, pin: SecretBytes?) throws(FIDOError) -> [UInt8]? {
        let probe = AssertionRequest(clientDataJSON: clientData, rpID: rpID, userPresence: false)
        for index in 0..<batches.count {
            if controller.isCancelled { return nil }
            do throws(FIDOError) {
                let found = try device.getAssertions(probe, allowing: batches[index], pin: pin)
                if let id = found.first?.credentialID, !id.isEmpty { return id }
            } catch {
                if pin != nil, error.code != FIDOError.noCredentials { throw error }
            }
        }
        return nil
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

    subscript(index: Int) -> ArraySlice<[UInt8]> { ids[ranges[index]] }
}
