import CFIDO2

/// Where a key can be opened: a hidraw path, or a custom path plus the I/O hooks that reach it
/// (how a software authenticator is attached, since libfido2 1.12 cannot add to its manifest).
public struct DeviceLocation: Sendable {
    public let path: String
    public let io: fido_dev_io_t?
    public let manufacturer: String
    public let product: String
    public let vendorID: Int
    public let productID: Int
    /// True for SoftToken: shown as "software token" everywhere a user could mistake it for a key.
    public let isSoftware: Bool
    /// Whether a key reached through custom I/O is still plugged in (a hidraw node's presence is its own).
    public let stillPresent: (@Sendable () -> Bool)?

    public init(
        path: String, io: fido_dev_io_t? = nil, manufacturer: String, product: String,
        vendorID: Int = 0, productID: Int = 0, isSoftware: Bool = false,
        stillPresent: (@Sendable () -> Bool)? = nil
    ) {
        self.path = path
        self.io = io
        self.manufacturer = manufacturer
        self.product = product
        self.vendorID = vendorID
        self.productID = productID
        self.isSoftware = isSoftware
        self.stillPresent = stillPresent
    }
}

// swift-format-ignore: AvoidRetroactiveConformances
// libfido2's C struct of four function pointers, never changed once built: sharing it is safe, and only this
// module can say so (libfido2's header has no Swift annotations).
extension fido_dev_io_t: @retroactive @unchecked Sendable {}

/// The seam between ceremonies and the keys they use: USB keys in production, SoftTokens in tests and demos.
public protocol DeviceProvider: Sendable {
    /// The keys present right now (polled while the user is asked to insert one).
    func locations() -> [DeviceLocation]
}

/// Every FIDO HID device plugged in: those libfido2 finds (`fido_dev_info_manifest`), and those it cannot see because
/// this process may not open their nodes (`HIDRawNode`), so that a key without the udev rule is named as unusable
/// rather than missing.
public struct USBDeviceProvider: DeviceProvider {
    public static let maxDevices = 64

    public init() {}

    public func locations() -> [DeviceLocation] {
        let usable = manifest()
        return usable + Self.inaccessible(besides: usable)
    }

    /// The FIDO keys plugged in whose nodes this process may not open (none listed in `listed`).
    public static func inaccessible(besides listed: [DeviceLocation] = []) -> [DeviceLocation] {
        HIDRawNode.fidoNodes().filter { node in node.isRefused && !listed.contains { $0.path == node.path } }.map {
            DeviceLocation(
                path: $0.path, manufacturer: $0.manufacturer, product: $0.product, vendorID: $0.vendorID,
                productID: $0.productID)
        }
    }

    /// The keys libfido2 lists: those whose nodes this process can open and whose report descriptor is FIDO's.
    public func manifest() -> [DeviceLocation] {
        guard let list = fido_dev_info_new(Self.maxDevices) else { return [] }
        var owned: OpaquePointer? = list
        defer { fido_dev_info_free(&owned, Self.maxDevices) }
        var found = 0
        guard fido_dev_info_manifest(list, Self.maxDevices, &found) == FIDO_OK else { return [] }
        return (0..<found).compactMap { index in
            guard let info = fido_dev_info_ptr(list, index), let path = fido_dev_info_path(info) else { return nil }
            return DeviceLocation(
                path: String(cString: path),
                manufacturer: fido_dev_info_manufacturer_string(info).map { String(cString: $0) } ?? "",
                product: fido_dev_info_product_string(info).map { String(cString: $0) } ?? "",
                vendorID: Int(UInt16(bitPattern: fido_dev_info_vendor(info))),
                productID: Int(UInt16(bitPattern: fido_dev_info_product(info))))
        }
    }
}

/// A fixed set of locations (a configured SoftToken).
public struct FixedDeviceProvider: DeviceProvider {
    public let fixed: [DeviceLocation]
    public init(_ locations: [DeviceLocation]) { fixed = locations }
    public func locations() -> [DeviceLocation] { fixed }
}
