import CFIDO2
import Testing

@testable import FIDO
@testable import SoftToken

@Suite struct GetInfoTests {
    /// Reads getInfo through libfido2's own parser.
    func info(_ fixture: TokenFixture) throws -> (
        versions: [String], extensions: [String], options: [String: Bool], protocols: [UInt8], algorithms: [Int32],
        info: OpaquePointer
    ) {
        let device = try fixture.open()
        let ci = try #require(fido_cbor_info_new())
        #expect(fido_dev_get_cbor_info(device.handle, ci) == FIDO_OK)
        func strings(_ p: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ n: Int) -> [String] {
            (0..<n).compactMap { p?[$0].map { String(cString: $0) } }
        }
        let versions = strings(fido_cbor_info_versions_ptr(ci), fido_cbor_info_versions_len(ci))
        let extensions = strings(fido_cbor_info_extensions_ptr(ci), fido_cbor_info_extensions_len(ci))
        let names = strings(fido_cbor_info_options_name_ptr(ci), fido_cbor_info_options_len(ci))
        let values = (0..<names.count).map { fido_cbor_info_options_value_ptr(ci)?[$0] ?? false }
        let protocols = Array(
            UnsafeBufferPointer(start: fido_cbor_info_protocols_ptr(ci), count: fido_cbor_info_protocols_len(ci)))
        let algorithms = (0..<fido_cbor_info_algorithm_count(ci)).map { fido_cbor_info_algorithm_cose(ci, $0) }
        return (versions, extensions, Dictionary(uniqueKeysWithValues: zip(names, values)), protocols, algorithms, ci)
    }

    @Test func getInfoAdvertisesCTAP21FeaturesThroughLibfido2() throws {
        let fixture = try TokenFixture()
        let result = try info(fixture)
        var ci: OpaquePointer? = result.info
        defer { fido_cbor_info_free(&ci) }
        #expect(result.versions == ["FIDO_2_0", "FIDO_2_1"])
        #expect(Set(result.extensions) == ["credProtect", "hmac-secret", "credBlob", "largeBlobKey", "minPinLength"])
        #expect(result.options["rk"] == true)
        #expect(result.options["up"] == true)
        #expect(result.options["clientPin"] == false)
        #expect(result.options["pinUvAuthToken"] == true)
        #expect(result.options["largeBlobs"] == true)
        #expect(result.options["makeCredUvNotRqd"] == true)
        #expect(result.options["uv"] == nil)
        #expect(result.protocols == [2, 1])
        #expect(result.algorithms == [COSE_ES256, COSE_EDDSA])
        #expect(fido_cbor_info_maxmsgsiz(result.info) == 1200)
        #expect(fido_cbor_info_maxcredbloblen(result.info) == 32)
        #expect(fido_cbor_info_maxlargeblob(result.info) == 1024)
        #expect(fido_cbor_info_minpinlen(result.info) == 4)
        let aaguid = Array(
            UnsafeBufferPointer(
                start: fido_cbor_info_aaguid_ptr(result.info), count: fido_cbor_info_aaguid_len(result.info)))
        #expect(aaguid == SoftTokenConfiguration.defaultAAGUID)
        let transports = (0..<fido_cbor_info_transports_len(result.info)).map {
            String(cString: fido_cbor_info_transports_ptr(result.info)![$0]!)
        }
        #expect(transports == ["usb"])
    }

    @Test func getInfoReflectsPINUVAndResidentKeyConfiguration() throws {
        var configuration = SoftTokenConfiguration(residentKeys: false, builtInUV: true, pinUvAuthProtocols: [1])
        configuration.minPINLength = 6
        let fixture = try TokenFixture(configuration, pin: "123456")
        let result = try info(fixture)
        var ci: OpaquePointer? = result.info
        defer { fido_cbor_info_free(&ci) }
        #expect(result.options["rk"] == false)
        #expect(result.options["uv"] == true)
        #expect(result.options["clientPin"] == true)
        #expect(result.protocols == [1])
        #expect(fido_cbor_info_minpinlen(result.info) == 6)
    }

    @Test func theSameTokenCanBeOpenedRepeatedlyAndConcurrently() throws {
        let fixture = try TokenFixture()
        for _ in 0..<3 { _ = try fixture.open() }
        let first = try fixture.open()
        let second = try fixture.open()
        #expect(fido_dev_is_fido2(first.handle))
        #expect(fido_dev_is_fido2(second.handle))
        let credential = try first.makeCredential()
        try second.getAssertion(allow: [credential.credentialID])
    }

    @Test func openingAnUnattachedPathFails() {
        #expect(throws: FIDOError.self) { try TokenFixture.open(path: "softfido:no-such-token") }
    }
}
