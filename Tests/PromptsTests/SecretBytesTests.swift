import TestSupport
import Testing

@testable import Prompts
@testable import Secrets

struct SecretBytesTests {
    @Test func storageIsZeroedBeforeItIsFreed() {
        let seen = Locked<[UInt8]?>(nil)
        do {
            let secret = SecretBytes(Array("correct horse".utf8))
            secret.onRelease = { storage in seen.with { $0 = Array(storage) } }
            #expect(secret.withUnsafeBytes { Array($0) } == Array("correct horse".utf8))
        }
        // 13 bytes + the trailing NUL, all zero at the moment the memory is handed back.
        #expect(seen.current == Array(repeating: 0, count: 14))
    }

    @Test func neverPrintsItsBytes() {
        let secret = SecretBytes(Array("123456".utf8))
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("123456") && !dumped.contains("49"))
    }

    @Test func isACStringForLibfido2() {
        let secret = SecretBytes(Array("9876".utf8))
        #expect(secret.withCString { String(cString: $0) } == "9876")
        #expect(secret.count == 4)
    }

    @Test func comparesByContent() {
        #expect(SecretBytes([1, 2, 3]).hasSameBytes(as: SecretBytes([1, 2, 3])))
        #expect(!SecretBytes([1, 2, 3]).hasSameBytes(as: SecretBytes([1, 2, 4])))
        #expect(!SecretBytes([1, 2, 3]).hasSameBytes(as: SecretBytes([1, 2])))
    }

    @Test func zeroWipesAnArrayInPlace() {
        var bytes: [UInt8] = [1, 2, 3]
        SecretBytes.zero(&bytes)
        #expect(bytes == [0, 0, 0])
    }

    @Test func zeroingBufferKeepsItsContentAcrossGrowth() {
        let buffer = ZeroingBuffer(capacity: 16)
        for byte in 0..<100 { buffer.append(UInt8(byte)) }
        buffer.removeLast(10)
        #expect(Array(buffer.bytes) == (0..<90).map { UInt8($0) })
        let secret = buffer.takeSecret()
        #expect(secret.count == 90)
        #expect(buffer.count == 0)
    }
}

struct AssuanEscapingTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("100%", "100%25"),
        ("a\nb\r\nc", "a%0Ab%0D%0Ac"),
        ("tab\there", "tab%09here"),
        ("été 🔑", "été 🔑"),
    ])
    func escapesPercentAndControlCharacters(text: String, escaped: String) {
        #expect(AssuanConnection.escape(text) == escaped)
    }

    @Test func longTextIsCutBeforeTheLineLimitWithoutSplittingACharacter() {
        let escaped = AssuanConnection.escape(String(repeating: "é", count: 2000))
        #expect(escaped.utf8.count < AssuanConnection.maximumLineLength - 10)
        #expect(escaped.hasSuffix("é…"))
    }
}
