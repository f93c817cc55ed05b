import Testing

@testable import FIDO

/// Recognising a FIDO key from the report descriptor and uevent sysfs publishes, without opening its node.
@Suite struct HIDRawNodeTests {
    static let fido: [UInt8] = [
        0x06, 0xD0, 0xF1, 0x09, 0x01, 0xA1, 0x01, 0x09, 0x20, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40,
        0x81, 0x02, 0x09, 0x21, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40, 0x91, 0x02, 0xC0,
    ]

    @Test(
        arguments: [
            (fido, [0xF1D0]),
            // A keyboard: Generic Desktop, then Keyboard/Keypad and LEDs pages (one-byte usage pages).
            ([0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x05, 0x08, 0xC0], [0x01, 0x07, 0x08]),
            // A long item (0xFE, 2 data bytes, a tag) is stepped over.
            ([0xFE, 0x02, 0x10, 0x06, 0xD0, 0x06, 0xD0, 0xF1], [0xF1D0]),
            // A four-byte usage page; then an item cut short ends the walk.
            ([0x07, 0xD0, 0xF1, 0x00, 0x00, 0x06, 0xD0], [0xF1D0]),
            ([], []),
        ] as [([UInt8], [UInt32])])
    func usagePagesAreReadFromShortItems(descriptor: [UInt8], pages: [UInt32]) {
        #expect(HIDRawNode.usagePages(descriptor) == pages)
    }

    @Test func ueventFieldsAreSplitAtTheFirstEqualsSign() {
        let uevent = Array("HID_ID=0003:00001050:00000407\nHID_NAME=Yubico YubiKey OTP+FIDO+CCID\nHID_UNIQ=\n".utf8)
        #expect(
            HIDRawNode.fields(uevent) == [
                "HID_ID": "0003:00001050:00000407", "HID_NAME": "Yubico YubiKey OTP+FIDO+CCID", "HID_UNIQ": "",
            ])
    }
}
