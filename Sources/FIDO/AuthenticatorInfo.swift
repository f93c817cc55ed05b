import CFIDO2

/// What a key says about itself in authenticatorGetInfo, decoded once after opening.
public struct AuthenticatorInfo: Sendable, Equatable {
    public var versions: [String] = []
    public var extensions: [String] = []
    public var aaguid: [UInt8] = []
    public var options: [String: Bool] = [:]
    public var algorithms: [Int] = []
    public var pinProtocols: [Int] = []
    public var maxMessageSize = 0
    public var maxCredentialBlobLength = 0
    public var minPINLength = 0
    public var maxLargeBlobArray = 0
    public var firmwareVersion = 0
    public var maxCredentialCountInList = 0
    public var maxCredentialIDLength = 0
    /// getInfo forcePINChange: the key refuses its PIN until it is changed.
    public var forcePINChange = false

    public init() {}

    init(_ info: OpaquePointer) {
        versions = Self.strings(fido_cbor_info_versions_ptr(info), fido_cbor_info_versions_len(info))
        extensions = Self.strings(fido_cbor_info_extensions_ptr(info), fido_cbor_info_extensions_len(info))
        if let ptr = fido_cbor_info_aaguid_ptr(info) {
            aaguid = Array(UnsafeBufferPointer(start: ptr, count: fido_cbor_info_aaguid_len(info)))
        }
        let names = fido_cbor_info_options_name_ptr(info)
        let values = fido_cbor_info_options_value_ptr(info)
        for index in 0..<fido_cbor_info_options_len(info) {
            if let name = names?[index], let values { options[String(cString: name)] = values[index] }
        }
        algorithms = (0..<fido_cbor_info_algorithm_count(info)).map { Int(fido_cbor_info_algorithm_cose(info, $0)) }
        if let ptr = fido_cbor_info_protocols_ptr(info) {
            pinProtocols = UnsafeBufferPointer(start: ptr, count: fido_cbor_info_protocols_len(info)).map(Int.init)
        }
        // The key chooses these (uint64 in getInfo's CBOR): Int(_:) would trap on one above Int.max.
        maxMessageSize = Int(clamping: fido_cbor_info_maxmsgsiz(info))
        maxCredentialBlobLength = Int(clamping: fido_cbor_info_maxcredbloblen(info))
        minPINLength = Int(clamping: fido_cbor_info_minpinlen(info))
        maxLargeBlobArray = Int(clamping: fido_cbor_info_maxlargeblob(info))
        firmwareVersion = Int(clamping: fido_cbor_info_fwversion(info))
        maxCredentialCountInList = Int(clamping: fido_cbor_info_maxcredcntlst(info))
        maxCredentialIDLength = Int(clamping: fido_cbor_info_maxcredidlen(info))
        forcePINChange = fido_cbor_info_new_pin_required(info)
    }

    private static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int) -> [String] {
        guard let list else { return [] }
        return (0..<count).compactMap { list[$0].map { String(cString: $0) } }
    }

    public var isFIDO2: Bool { versions.contains { $0.hasPrefix("FIDO_2") } }
    public var hasClientPIN: Bool { options["clientPin"] == true }
    public var supportsClientPIN: Bool { options["clientPin"] != nil }
    public var hasBuiltInUV: Bool { options["uv"] == true }
    public var supportsBuiltInUV: Bool { options["uv"] != nil }
    public var supportsResidentKeys: Bool { options["rk"] == true }
    public var supportsLargeBlobs: Bool { options["largeBlobs"] == true }
    public func supportsExtension(_ name: String) -> Bool { extensions.contains(name) }
    public var alwaysUV: Bool { options["alwaysUv"] == true }
    public var makeCredentialUVNotRequired: Bool { options["makeCredUvNotRqd"] == true }
    /// COSE algorithms the key accepts; CTAP 2.0 keys that omit the list support ES256 (CTAP 2.1 §6.4).
    public var supportedAlgorithms: [Int] { algorithms.isEmpty ? [-7] : algorithms }
}
