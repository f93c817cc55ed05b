import FIDO
import WebAuthn

/// Long allow/exclude lists, handled as Chromium does: a key accepts only a few credential ids per request
/// (maxCredentialCountInList, and its maxMsgSize), and libfido2 sends whatever it is given. So the list is
/// sent in batches the key accepts, as silent assertions (up=false: no touch, no signature counter), to learn
/// which credential the key holds; the real ceremony then names only that one.
struct CredentialListPreflight {
    let device: Device
    let controller: CeremonyController
    let rpID: String
    let clientData: [UInt8]

    /// Room in a request for everything but the list (rp id, client data hash, options, extensions, PIN auth).
    static let fixedRequestBytes = 320
    /// Per entry: the CBOR map {"id": bytes, "type": "public-key"} around the id.
    static let entryOverheadBytes = 24

    /// Whether `list` must be split for this key.
    func needsBatches(_ list: [[UInt8]]) -> Bool {
        list.count > 1 && Self.batches(list, info: device.info).count > 1
    }

    /// The first credential of `list` the key holds, or nil when it holds none.
    func heldCredential(in list: [[UInt8]]) -> [UInt8]? {
        for batch in Self.batches(list, info: device.info) {
            if controller.isCancelled { return nil }
            let probe = AssertionRequest(clientDataJSON: clientData, rpID: rpID, allowList: batch, userPresence: false)
            if let found = try? controller.using(device, { () throws(FIDOError) in try device.getAssertions(probe, pin: nil) }),
               let id = found.first?.credentialID, !id.isEmpty {
                return id
            }
        }
        return nil
    }

    /// Splits `list` into requests the key accepts; ids longer than the key's maximum cannot be its own.
    static func batches(_ list: [[UInt8]], info: AuthenticatorInfo) -> [[[UInt8]]] {
        let usable = info.maxCredentialIDLength > 0 ? list.filter { $0.count <= info.maxCredentialIDLength } : list
        let maxCount = info.maxCredentialCountInList > 0 ? info.maxCredentialCountInList : Int.max
        let budget = max(1, (info.maxMessageSize > 0 ? info.maxMessageSize : 1200) - fixedRequestBytes)
        var batches: [[[UInt8]]] = [], current: [[UInt8]] = [], size = 0
        for id in usable {
            let entry = id.count + entryOverheadBytes
            if !current.isEmpty, current.count == maxCount || size + entry > budget {
                batches.append(current)
                current = []
                size = 0
            }
            current.append(id)
            size += entry
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}
