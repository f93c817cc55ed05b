import FIDO
import Synchronization
import Testing
import WebAuthn

@testable import BridgeHost

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `info` says a key can do: only a key a ceremony opened, only while it stays plugged in (docs/protocol.md).
struct KeyCapabilityCacheTests {
    /// Keys plugged in, changed by the test as a user plugs and pulls them.
    final class Ports: DeviceProvider {
        let plugged: Mutex<[DeviceLocation]>
        init(_ keys: [DeviceLocation]) { plugged = Mutex(keys) }
        func locations() -> [DeviceLocation] { plugged.withLock { $0 } }
        func set(_ keys: [DeviceLocation]) { plugged.withLock { $0 = keys } }
    }

    static let yubiKey = DeviceLocation(
        path: "/dev/hidraw3", manufacturer: "Yubico", product: "YubiKey 5 NFC",
        vendorID: 0x1050, productID: 0x0407)
    static let solo = DeviceLocation(
        path: "/dev/hidraw3", manufacturer: "SoloKeys", product: "Solo 2",
        vendorID: 0x1209, productID: 0xbeee)
    static let fido21: AuthenticatorInfo = {
        var info = AuthenticatorInfo()
        info.versions = ["U2F_V2", "FIDO_2_0", "FIDO_2_1"]
        info.options = ["rk": true, "clientPin": true, "up": true]
        info.extensions = ["hmac-secret"]
        info.algorithms = [-7, -8]
        return info
    }()

    static func info(_ ports: Ports, _ seen: KeyCapabilityCache) -> [JSONValue] {
        let log = HostLog(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("info-\(UUID().uuidString).log").path,
            level: .error)
        guard case .array(let devices)? = HostInfo.report(devices: ports, log: log, seen: seen)["devices"] else {
            return []
        }
        return devices
    }

    @Test func aKeyNeverOpenedHasNoCapabilitiesInInfo() {
        let devices = Self.info(Ports([Self.yubiKey]), KeyCapabilityCache())
        #expect(devices.count == 1)
        #expect(devices.first?["capabilities"] == nil)
        #expect(devices.first?["product"] == .string("YubiKey 5 NFC"))
    }

    @Test func aKeyOpenedCarriesKeyCapabilitiesOwnLineUntilItIsPulledOut() {
        let ports = Ports([Self.yubiKey])
        let seen = KeyCapabilityCache()
        seen.remember(Self.yubiKey, info: Self.fido21)
        let line = KeyCapabilities(info: Self.fido21).summary
        #expect(line == "CTAP 2.1 and U2F, passkeys, PIN set, PRF, no largeBlob, ES256/EdDSA")
        #expect(Self.info(ports, seen).first?["capabilities"] == .string(line))
        #expect(Self.info(ports, seen).first?["capabilities"] == .string(line), "asking again changes nothing")

        ports.set([])
        #expect(Self.info(ports, seen).isEmpty)
        ports.set([Self.yubiKey])
        #expect(Self.info(ports, seen).first?["capabilities"] == nil, "forgotten once it was seen gone")
    }

    @Test func anotherKeyAtTheSamePathDoesNotInheritTheLine() {
        let ports = Ports([Self.solo])
        let seen = KeyCapabilityCache()
        seen.remember(Self.yubiKey, info: Self.fido21)
        #expect(Self.info(ports, seen).first?["capabilities"] == nil)
        ports.set([Self.yubiKey])
        #expect(
            Self.info(ports, seen).first?["capabilities"] == nil, "the YubiKey's line went when the Solo was listed")
    }

    @Test func keysNoLongerListedAreForgotten() {
        let seen = KeyCapabilityCache()
        seen.remember(Self.yubiKey, info: Self.fido21)
        seen.remember(
            DeviceLocation(path: "/dev/hidraw4", manufacturer: "Feitian", product: "ePass"), info: AuthenticatorInfo())
        seen.forget(allBut: [Self.yubiKey])
        #expect(seen.summaries(listed: [Self.yubiKey]).keys.sorted() == ["/dev/hidraw3"])
    }

    @Test func aU2FOnlyKeyIsSaidToBeOne() {
        let u2f = DeviceLocation(path: "/dev/hidraw5", manufacturer: "Yubico", product: "Security Key")
        let seen = KeyCapabilityCache()
        seen.remember(u2f, info: AuthenticatorInfo())
        #expect(seen.summaries(listed: [u2f])[u2f.path] == "U2F only: no passkeys, no PIN, no user verification; ES256")
    }
}
