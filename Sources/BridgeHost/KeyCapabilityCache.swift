import FIDO
import Synchronization

/// What each key opened during a ceremony can do, in `KeyCapabilities.summary`'s words, so that `info` can say
/// it: `info` answers at once, also while a ceremony holds a key, and opens no key, while a ceremony opens every
/// key it looks at and reads its getInfo anyway. Kept by device path, with what discovery says about the key at
/// that path, and forgotten once the key is no longer listed: a hidraw node's number is reused by the next key
/// plugged in, which must not inherit the last one's line. Nothing is read from a key for this, and the summary
/// holds no secret (a PIN is only "set" or "not set", as getInfo reports it at the open).
final class KeyCapabilityCache: Sendable {
    /// The host's one cache: one process serves one browser, which sees the one set of keys plugged in.
    static let shared = KeyCapabilityCache()

    /// What discovery says about a key: a different key at the same path differs in one of these.
    private struct Listing: Equatable {
        let manufacturer: String
        let product: String
        let vendorID: Int
        let productID: Int

        init(_ location: DeviceLocation) {
            manufacturer = location.manufacturer
            product = location.product
            vendorID = location.vendorID
            productID = location.productID
        }
    }

    private struct Entry {
        let listing: Listing
        let summary: String
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// A key the ceremony just opened. A FIDO2 key whose getInfo could not be read is skipped: its empty info
    /// would read as "U2F only".
    func remember(_ device: Device) {
        guard device.info.isFIDO2 || !device.isFIDO2 else { return }
        remember(device.location, info: device.info)
    }

    func remember(_ location: DeviceLocation, info: AuthenticatorInfo) {
        let entry = Entry(listing: Listing(location), summary: KeyCapabilities(info: info).summary)
        entries.withLock { $0[location.path] = entry }
    }

    /// The summaries of the keys `listed` now, by path; every other one is forgotten.
    func summaries(listed: [DeviceLocation]) -> [String: String] {
        entries.withLock { entries in
            Self.keep(listed, in: &entries)
            return entries.mapValues(\.summary)
        }
    }

    /// Forgets every key not `listed` now (pulled out, or another key at its path).
    func forget(allBut listed: [DeviceLocation]) {
        entries.withLock { Self.keep(listed, in: &$0) }
    }

    private static func keep(_ listed: [DeviceLocation], in entries: inout [String: Entry]) {
        let present = Dictionary(listed.map { ($0.path, Listing($0)) }, uniquingKeysWith: { first, _ in first })
        entries = entries.filter { path, entry in present[path] == entry.listing }
    }
}
