import CBOR
import Testing
import Threading

@testable import BridgeHost

struct CTAPTraceTests {
    /// libfido2's way of logging a CBOR payload: the command line, the buffer line, then hex lines of 16 bytes.
    static func dump(_ direction: String, _ payload: [UInt8]) -> [String] {
        var lines = ["\(direction): dev=0x7f00, cmd=0x10", "\(direction): buf=0x7f01, len=\(payload.count)"]
        for start in stride(from: 0, to: payload.count, by: 16) {
            let chunk = payload[start..<min(start + 16, payload.count)]
            let offset = String(start)
            let padded = String(repeating: "0", count: 4 - offset.count) + offset
            lines.append(
                "\(padded): " + chunk.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " "))
        }
        return lines
    }

    @Test func clientPINSecretsAreRedactedAndNoHexReachesTheLog() {
        let pinHashEnc: [UInt8] = Array(repeating: 0xAB, count: 16)
        let request: [UInt8] =
            [0x06] + CBOR.map([(1, 2), (2, 5), (6, .bytes(pinHashEnc)), (4, .bytes([0xCD, 0xCD]))]).encode()
        let response: [UInt8] = [0x00] + CBOR.map([(2, .bytes(Array(repeating: 0xEF, count: 48)))]).encode()
        let trace = CTAPTrace()
        let shown = (Self.dump("fido_tx", request) + Self.dump("fido_rx", response)).flatMap(trace.lines(for:))
        let text = shown.joined(separator: "\n")
        #expect(text.contains("CTAP → authenticatorClientPIN {1: 2, 2: 5, 4: <redacted>, 6: <redacted>}"))
        #expect(text.contains("CTAP ← authenticatorClientPIN status 0x0 {2: <redacted>}"))
        #expect(!text.contains("ab ab") && !text.contains("abab") && !text.contains("efef") && !text.contains("cdcd"))
        #expect(!shown.contains { CTAPTrace.hexDump($0) != nil })
    }

    /// Keys that race log from threads of their own: a hex dump on one thread never completes a frame announced on
    /// another (where another command's redaction rules would apply to it).
    @Test func eachThreadAssemblesItsOwnFrames() {
        let request: [UInt8] =
            [0x06] + CBOR.map([(1, 2), (2, 5), (6, .bytes(Array(repeating: 0xAB, count: 16)))]).encode()
        let lines = Self.dump("fido_tx", request)
        let trace = CTAPTrace()
        let header = lines.prefix(2).flatMap(trace.lines(for:))
        final class Shown: @unchecked Sendable {  // guarded by `done`
            let done = Condition()
            var lines: [String]?
        }
        let elsewhere = Shown()
        startDetachedThread(name: "another-key") {
            let shown = lines.dropFirst(2).flatMap(trace.lines(for:))
            elsewhere.done.withLock {
                elsewhere.lines = shown
                elsewhere.done.broadcast()
            }
        }
        let other = elsewhere.done.withLock {
            while elsewhere.lines == nil { elsewhere.done.wait() }
            return elsewhere.lines
        }
        #expect(header.count == 2 && other == [])
        let here = lines.dropFirst(2).flatMap(trace.lines(for:))
        #expect(here == ["CTAP → authenticatorClientPIN {1: 2, 2: 5, 6: <redacted>}"])
    }

    /// A failure is named as the spec names it, from the same table SoftToken answers with.
    @Test func aFailingStatusIsNamed() {
        let request: [UInt8] = [0x06] + CBOR.map([(1, 2), (2, 9)]).encode()
        let trace = CTAPTrace()
        let shown = (Self.dump("fido_tx", request) + Self.dump("fido_rx", [0x31])).flatMap(trace.lines(for:))
        #expect(shown.contains("CTAP ← authenticatorClientPIN status 0x31 PIN_INVALID"))
    }

    /// Which members of a command it does not know are secret cannot be said, so none is shown.
    @Test func anUnknownCommandsMembersAreNotShown() {
        let request: [UInt8] = [0x42] + CBOR.map([(1, .bytes([0xAB, 0xCD]))]).encode()
        let shown = Self.dump("fido_tx", request).flatMap(CTAPTrace().lines(for:))
        #expect(shown.contains("CTAP → command 0x42 (5 bytes of an unknown command, not shown)"))
        #expect(!shown.joined().contains("abcd"))
    }

    @Test func hmacSecretSaltsInAGetAssertionAreRedacted() {
        let hmac = CBOR.map([
            (1, .map([(1, 2)])), (2, .bytes(Array(repeating: 0x5A, count: 32))),
            (3, .bytes(Array(repeating: 0x5B, count: 16))),
        ])
        let request: [UInt8] =
            [0x02] + CBOR.map([(1, .text("example.com")), (4, .map([(.text("hmac-secret"), hmac)]))]).encode()
        let shown = Self.dump("fido_tx", request).flatMap(CTAPTrace().lines(for:)).joined()
        #expect(shown.contains("authenticatorGetAssertion {1: \"example.com\", 4: {\"hmac-secret\": <redacted>}}"))
        #expect(!shown.contains("5a5a"))
    }

    @Test func largeBlobKeysInRepliesAreRedacted() {
        let trace = CTAPTrace()
        let makeCredential: [UInt8] = [0x01] + CBOR.map([(1, .text("example.com"))]).encode()
        let created: [UInt8] =
            [0x00] + CBOR.map([(1, .text("none")), (5, .bytes(Array(repeating: 0x6C, count: 32)))]).encode()
        let getAssertion: [UInt8] = [0x02] + CBOR.map([(1, .text("example.com"))]).encode()
        let asserted: [UInt8] =
            [0x00] + CBOR.map([(3, .bytes([1, 2])), (7, .bytes(Array(repeating: 0x6D, count: 32)))]).encode()
        let shown = [
            ("fido_tx", makeCredential), ("fido_rx", created), ("fido_tx", getAssertion), ("fido_rx", asserted),
        ]
        .flatMap { Self.dump($0.0, $0.1) }.flatMap(trace.lines(for:)).joined(separator: "\n")
        #expect(shown.contains("authenticatorMakeCredential status 0x0 {1: \"none\", 5: <redacted>}"))
        #expect(shown.contains("7: <redacted>"))
        #expect(!shown.contains("6c6c") && !shown.contains("6d6d"))
    }

    @Test func rawHIDReportsAreDroppedAndOtherLinesPass() {
        let trace = CTAPTrace()
        #expect(trace.lines(for: "rx_preamble: buf=0x7f02, len=64") == ["rx_preamble: buf=0x7f02, len=64"])
        #expect(trace.lines(for: "0000: ff ff ff ff 86 00 11 6a 16 59 78 d7 55 fb 10 00").isEmpty)
        #expect(trace.lines(for: "fido_dev_open_rx: FIDO_ERR_RX") == ["fido_dev_open_rx: FIDO_ERR_RX"])
    }
}
