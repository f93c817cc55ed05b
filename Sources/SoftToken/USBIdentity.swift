/// What a USB key tells the system about itself before any CTAP: the ids and strings of its USB device descriptor,
/// which libudev reads from sysfs and libfido2 reports (`fido_dev_info_vendor`, `_product`, `_manufacturer_string`,
/// `_product_string`). A SoftToken shown to programs as a USB HID device (the tests' hidraw path, docs/softtoken.md)
/// carries the identity of the key its profile imitates.
public struct USBIdentity: Sendable, Equatable, Encodable {
    public let vendorId: Int
    public let productId: Int
    public let manufacturer: String
    public let product: String

    /// Yubico's ids (Yubico's list of YubiKey USB product ids): a YubiKey 5 with OTP, FIDO and CCID enabled.
    static let yubiKey5 = USBIdentity(
        vendorId: 0x1050, productId: 0x0407, manufacturer: "Yubico", product: "YubiKey OTP+FIDO+CCID")
    /// The FIDO-only Yubico keys (Security Key series, YubiKey Bio).
    static let yubicoFIDO = USBIdentity(
        vendorId: 0x1050, productId: 0x0402, manufacturer: "Yubico", product: "YubiKey FIDO")
    /// Yubico's first U2F-only Security Key.
    static let yubicoU2F = USBIdentity(
        vendorId: 0x1050, productId: 0x0120, manufacturer: "Yubico", product: "Security Key by Yubico")
    /// A SoftToken that imitates no particular key: pid.codes' test product id, which no real key uses.
    public static let softToken = USBIdentity(
        vendorId: 0x1209, productId: 0x0001, manufacturer: "webauthn-bridge", product: "SoftToken")
}
