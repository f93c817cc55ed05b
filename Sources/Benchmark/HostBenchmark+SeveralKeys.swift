import Cryptography
import SoftToken
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HostBenchmark {
    /// The time to the answer with one, two and three keys plugged in. The request goes to every key at once; the
    /// first key's user touches at once and the others' never, so beyond the one-key figure it is what sending the
    /// request to the others costs (opening them, a thread each) and cancelling and closing them before the answer.
    /// `ceremonies` create and get each (at least one), through one host per key count. "wrong key" is a get naming
    /// a credential no key holds, the first key touched at once: the time to its refusal.
    func severalKeys(ceremonies: Int) throws -> JSONValue {
        var rows: [(String, JSONValue)] = []
        for count in 1...3 {
            var tokens = [try newToken("keys\(count)-touched")]
            for index in 1..<count {
                let path = scratch + "/keys\(count)-untouched\(index).state"
                let untouched = SoftTokenConfiguration(presence: .delay(milliseconds: 600_000))
                _ = try SoftToken.create(at: path, configuration: untouched, pin: nil)
                tokens.append(path)
            }
            let host = try BenchHost(
                hostPath: hostPath, environment: environment(token: tokens.joined(separator: ":")))
            defer { host.close() }
            var credential: [UInt8] = []
            var figures: [(String, JSONValue)] = []
            for kind in ["create", "get", "wrong key"] {
                var toAnswer = Sample()
                for i in 0..<max(1, ceremonies) {
                    let frame =
                        switch kind {
                        case "create": Self.createFrame("c\(i)")
                        case "get": Self.getFrame("g\(i)", allow: [credential])
                        default: Self.getFrame("w\(i)", allow: [Digest.randomBytes(64)])
                        }
                    let (ms, reply) = try timed { try host.request(frame) }
                    if kind == "create", credential.isEmpty { credential = try Self.credentialID(reply) }
                    let expected: JSONValue = kind == "wrong key" ? "error" : "result"
                    guard reply["type"] == expected else {
                        throw BenchError("\(kind) with \(count) keys failed: \(reply.serializedString.prefix(300))")
                    }
                    toAnswer.add(ms)
                }
                figures.append((kind, Self.summary(toAnswer, unit: "ms")))
            }
            rows.append(("\(count) key\(count == 1 ? "" : "s")", .object(figures)))
        }
        return .object(rows)
    }
}
