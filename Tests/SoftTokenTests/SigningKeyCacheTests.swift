import Cryptography
import Testing

@testable import SoftToken

@Suite struct SigningKeyCacheTests {
    @Test func sameKeyBytesGiveTheParsedKeyAgainAndItStillSigns() throws {
        let der = try SigningKey.generate(.es256).pkcs8DER
        var cache = SigningKeyCache()
        let first = try cache.key(pkcs8DER: der)
        let second = try cache.key(pkcs8DER: der)
        #expect(first === second)
        #expect(second.pkcs8DER == der)
        #expect(try !second.sign([1, 2, 3]).isEmpty)
    }

    @Test func differentKeysAreNotConfusedEvenPastTheCapacity() throws {
        var cache = SigningKeyCache()
        let ders = try (0...SigningKeyCache.capacity).map { _ in try SigningKey.generate(.edDSA).pkcs8DER }
        for der in ders + ders { #expect(try cache.key(pkcs8DER: der).pkcs8DER == der) }
    }

    @Test func unparsableBytesAreAnError() {
        var cache = SigningKeyCache()
        #expect(throws: CryptoError.self) { try cache.key(pkcs8DER: [0x30, 0x00]) }
    }
}
