import CBOR
import Cryptography

/// Builds authenticator data (WebAuthn §6.1): rpIdHash ‖ flags ‖ signCount ‖ [attested credential] ‖ [extensions].
struct AuthenticatorData {
    struct Flags: OptionSet {
        let rawValue: UInt8
        static let userPresent = Flags(rawValue: 0x01)
        static let userVerified = Flags(rawValue: 0x04)
        static let attestedCredential = Flags(rawValue: 0x40)
        static let extensionData = Flags(rawValue: 0x80)
    }

    var rpIDHash: [UInt8]
    var flags: Flags
    var signCount: UInt32
    var attestedCredential: (aaguid: [UInt8], credentialID: [UInt8], publicKey: [(Int, COSEValue)])?
    var extensions: [(CBOR, CBOR)] = []

    var bytes: [UInt8] {
        var flags = self.flags
        if attestedCredential != nil { flags.insert(.attestedCredential) }
        if !extensions.isEmpty { flags.insert(.extensionData) }
        var out = rpIDHash + [flags.rawValue]
        out += withUnsafeBytes(of: signCount.bigEndian) { Array($0) }
        if let credential = attestedCredential {
            out += credential.aaguid
            out += [UInt8(credential.credentialID.count >> 8), UInt8(credential.credentialID.count & 0xFF)]
            out += credential.credentialID
            out += Self.cose(credential.publicKey).encode()
        }
        if !extensions.isEmpty { out += CBOR.map(extensions).encode() }
        return out
    }

    static func cose(_ key: [(Int, COSEValue)]) -> CBOR {
        .map(
            key.map { label, value in
                switch value {
                case .int(let i): return (.int(label), .int(i))
                case .bytes(let b): return (.int(label), .bytes(b))
                }
            })
    }
}
