import FIDO
import SoftToken
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `getAssertions(_:allowing:pin:)` sends a slice of a longer list (a batch of a long allow list) through real
/// libfido2 to a SoftToken: exactly that slice, wherever it starts in the list.
@Suite(.serialized) struct GetAssertionSliceTests {
    static let rpID = "slice.example"

    /// A fresh token holding one non-discoverable credential, opened as a key, and that credential's id.
    static func keyWithCredential() throws -> (Device, [UInt8], String) {
        FIDOLibrary.attachLogging(to: nil)
        let state = FileManager.default.temporaryDirectory.path + "/slice-\(UUID().uuidString).state"
        let path = SoftTokenDevice.attach(
            try SoftToken.create(at: state, configuration: SoftTokenConfiguration(), pin: nil))
        let device = try Device.open(
            DeviceLocation(
                path: path, io: SoftTokenDevice.ioFunctions, manufacturer: "test",
                product: "SoftToken", isSoftware: true))
        let made = try device.makeCredential(
            CredentialRequest(
                clientDataJSON: Array("{}".utf8), rpID: rpID, rpName: "Slice", userID: [1, 2, 3], userName: "u",
                userDisplayName: "U", algorithm: -7, residentKey: false), pin: nil)
        return (device, made.credentialID, state)
    }

    static func discard(_ device: Device, _ state: String) {
        device.close()
        SoftTokenDevice.detach(path: device.location.path)
        try? FileManager.default.removeItem(atPath: state)
    }

    static func others(_ count: Int) -> [[UInt8]] {
        (0..<count).map { n in (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) } }
    }

    @Test func aSliceNamingTheCredentialFindsItWhereverItStarts() throws {
        let (device, credential, state) = try Self.keyWithCredential()
        defer { Self.discard(device, state) }
        let list = Self.others(5) + [credential] + Self.others(3)
        // The request's own list is empty: only the slice can name the credential (it is not discoverable).
        let probe = AssertionRequest(clientDataJSON: Array("{}".utf8), rpID: Self.rpID, userPresence: false)
        for range in [5..<6, 3..<7, 5..<9] {
            let found = try device.getAssertions(probe, allowing: list[range], pin: nil)
            #expect(found.map(\.credentialID) == [credential], "range \(range)")
        }
    }

    @Test func aSliceWithoutTheCredentialFindsNone() throws {
        let (device, credential, state) = try Self.keyWithCredential()
        defer { Self.discard(device, state) }
        let list = [credential] + Self.others(4)
        let probe = AssertionRequest(
            clientDataJSON: Array("{}".utf8), rpID: Self.rpID, allowList: [credential], userPresence: false)
        // The slice, not the request's list, is what the key is asked about.
        do {
            let found = try device.getAssertions(probe, allowing: list[1...], pin: nil)
            Issue.record("found \(found.count) assertion(s) for ids the key does not hold")
        } catch {
            #expect(error.code == FIDOError.noCredentials)
        }
        #expect(try device.getAssertions(probe, pin: nil).map(\.credentialID) == [credential])
    }
}
