import Testing

@testable import Cryptography

struct CryptographyTests {
    @Test func sha256MatchesFIPSVector() {
        #expect(
            Digest.sha256(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hmacMatchesRFC4231Case2() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(mac.hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hkdfMatchesRFC5869Case1() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt: [UInt8] = Array(0x00...0x0c)
        let info: [UInt8] = Array(0xf0...0xf9)
        #expect(
            Digest.hkdfSHA256(ikm: ikm, salt: salt, info: info, length: 32).hex
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf")
    }

    @Test func aesCBCRoundTripsAndMatchesSP800_38A() throws {
        let key = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4".hexBytes
        let iv = "000102030405060708090a0b0c0d0e0f".hexBytes
        let plain = "6bc1bee22e409f96e93d7e117393172a".hexBytes
        let sealed = try SymmetricCipher.aes256CBC(encrypt: true, key: key, iv: iv, data: plain)
        #expect(sealed.hex == "f58c4c04d6e5f1ba779eabfb5f7bfbd6")
        #expect(try SymmetricCipher.aes256CBC(encrypt: false, key: key, iv: iv, data: sealed) == plain)
    }

    @Test func gcmRejectsTamperedCiphertext() throws {
        let key = Digest.randomBytes(32)
        let nonce = Digest.randomBytes(12)
        var sealed = try SymmetricCipher.aes256GCMSeal(key: key, nonce: nonce, plaintext: [1, 2, 3], aad: [9])
        #expect(try SymmetricCipher.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, aad: [9]) == [1, 2, 3])
        sealed[0] ^= 1
        #expect(throws: CryptoError.self) {
            try SymmetricCipher.aes256GCMOpen(key: key, nonce: nonce, sealed: sealed, aad: [9])
        }
    }

    @Test(arguments: SigningAlgorithm.allCases)
    func signaturesVerifyThroughCOSEAndSurvivePKCS8(algorithm: SigningAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let reloaded = try SigningKey.load(pkcs8DER: key.pkcs8DER)
        #expect(reloaded.publicKeyBytes == key.publicKeyBytes)
        let message = Array("signed data".utf8)
        let signature = try reloaded.sign(message)
        let cose = Dictionary(uniqueKeysWithValues: key.coseKey)
        let pub = try PublicKey.fromCOSE(cose)
        #expect(pub.verify(signature: signature, message: message))
        #expect(!pub.verify(signature: signature, message: message + [0]))
        #expect(pub.spkiDER.count == (algorithm == .es256 ? 91 : 44))
        // The DER built from the COSE key is byte for byte what OpenSSL writes for the key it parsed.
        #expect(try PublicKey.fromSPKI(pub.spkiDER, algorithm: pub.algorithm).spkiDER == pub.spkiDER)
    }

    @Test func ecdhAgreesOnBothSides() throws {
        let a = try KeyAgreementKey()
        let b = try KeyAgreementKey()
        let aPub = try PublicKey.p256(x: Array(a.publicPoint[1..<33]), y: Array(a.publicPoint[33...]))
        let bPub = try PublicKey.p256(x: Array(b.publicPoint[1..<33]), y: Array(b.publicPoint[33...]))
        #expect(try a.sharedSecret(with: bPub) == b.sharedSecret(with: aPub))
    }

    @Test func pointNotOnCurveIsRejected() {
        #expect(throws: CryptoError.self) {
            try PublicKey.p256(x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32))
        }
    }

    @Test(arguments: [(1, 32), (2, 48)])
    func coseEC2PointNotOnItsCurveIsRejected(curve: Int, size: Int) {
        let cose: [Int: COSEValue] = [
            1: .int(2), 3: .int(-7), -1: .int(curve),
            -2: .bytes([UInt8](repeating: 1, count: size)), -3: .bytes([UInt8](repeating: 2, count: size)),
        ]
        #expect(throws: CryptoError.self) { try PublicKey.fromCOSE(cose) }
    }

    @Test func p384KeyFromCOSEGivesTheSPKIOpenSSLWrites() throws {
        // The curve's generator point (SEC 2), a valid public key.
        let x = "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7"
            .hexBytes
        let y = "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"
            .hexBytes
        let key = try PublicKey.fromCOSE([1: .int(2), 3: .int(-35), -1: .int(2), -2: .bytes(x), -3: .bytes(y)])
        #expect(key.spkiDER.count == 120)
        #expect(try PublicKey.fromSPKI(key.spkiDER, algorithm: -35).spkiDER == key.spkiDER)
    }

    @Test func rsaKeyFromCOSEGivesSPKI() throws {
        // 2048-bit modulus with the top bit set, so the INTEGER needs a leading zero.
        let n = [0xC0] + [UInt8](repeating: 0x5B, count: 254) + [0x01]
        let key = try PublicKey.fromCOSE([1: .int(3), 3: .int(-257), -1: .bytes(n), -2: .bytes([1, 0, 1])])
        #expect(key.spkiDER.count == 294)
    }
}

extension [UInt8] {
    var hex: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}
extension String {
    var hexBytes: [UInt8] {
        stride(from: 0, to: count, by: 2).compactMap { i in
            let start = index(startIndex, offsetBy: i)
            return UInt8(self[start..<index(start, offsetBy: 2)], radix: 16)  // a test's own literal
        }
    }
}
