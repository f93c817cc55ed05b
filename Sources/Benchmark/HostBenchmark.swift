import Cryptography
import Glibc
import NativeMessaging
import SoftToken
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge bench`: the host's cost measured against a SoftToken — cold start, ceremonies over pipes
/// with the time inside libfido2 + SoftToken split out, list scaling, the frame codec, and peak RSS.
public struct HostBenchmark {
    public struct Options: Sendable {
        public var launches = 50
        public var ceremonies = 1000
        public var listSizes = [1, 16, 64]
        public init() {}
    }

    let hostPath: String
    let options: Options
    let scratch: String

    public init(hostPath: String, options: Options) throws {
        self.hostPath = hostPath
        self.options = options
        scratch = FileManager.default.temporaryDirectory.path + "/webauthn-bridge-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// Runs every measurement; `progress` gets one line per finished section.
    public func run(progress: (String) -> Void) throws -> [(String, JSONValue)] {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var report: [(String, JSONValue)] = []
        report.append(("coldStart", try coldStart()))
        progress("cold start done")
        let (ceremonies, memory) = try ceremonyLoop()
        report.append(("ceremonies", ceremonies))
        report.append(("peakRSSKiB", memory.peak.map { .number(Double($0)) } ?? .null))
        report.append(("residentAfterCeremoniesKiB", Self.residentObject(memory.now)))
        progress("ceremonies done")
        report.append(("shortSession", try shortSession()))
        report.append(("scaling", try scaling()))
        progress("scaling done")
        report.append(("severalKeys", try severalKeys(ceremonies: min(options.ceremonies, 50))))
        progress("several keys done")
        report.append(("largeBlob", try largeBlob()))
        progress("large blob done")
        report.append(("codec", codec()))
        return report
    }

    func environment(token: String) -> [String: String] {
        [
            "WEBAUTHN_BRIDGE_SOFT_TOKEN": token, "WEBAUTHN_BRIDGE_LOG_FILE": scratch + "/host.log",
            "WEBAUTHN_BRIDGE_LOG_LEVEL": "info", "WEBAUTHN_BRIDGE_BENCH_TIMING": "1", "HOME": scratch,
            "PATH": "/usr/bin:/bin",
        ]
    }

    func newToken(_ name: String) throws -> String {
        let path = scratch + "/\(name).state"
        _ = try SoftToken.create(at: path, configuration: SoftTokenConfiguration(), pin: nil)
        return path
    }

    func coldStart() throws -> JSONValue {
        let token = try newToken("cold")
        var sample = Sample()
        for _ in 0..<options.launches {
            let started = ContinuousClock.now
            let host = try BenchHost(hostPath: hostPath, environment: environment(token: token))
            try host.info()
            sample.add(elapsedMilliseconds(since: started))
            host.close()
        }
        return Self.summary(sample, unit: "ms")
    }

    static let origin = "https://bench.example"

    static func createFrame(_ id: String, exclude: [[UInt8]] = [], more: [(String, JSONValue)] = []) -> JSONValue {
        .object([
            ("id", .string(id)), ("type", "create"), ("origin", .string(origin)),
            (
                "options",
                .object(
                    [
                        ("rp", .object([("name", "Bench")])),
                        (
                            "user",
                            .object([
                                ("id", .binary(Array("bench-user".utf8))), ("name", "bench"), ("displayName", "Bench"),
                            ])
                        ),
                        ("challenge", .binary(Digest.randomBytes(32))),
                        ("pubKeyCredParams", .array([.object([("type", "public-key"), ("alg", -7)])])),
                        (
                            "excludeCredentials",
                            .array(exclude.map { .object([("type", "public-key"), ("id", .binary($0))]) })
                        ),
                    ] + more)
            ),
        ])
    }

    static func getFrame(_ id: String, allow: [[UInt8]], more: [(String, JSONValue)] = []) -> JSONValue {
        .object([
            ("id", .string(id)), ("type", "get"), ("origin", .string(origin)),
            (
                "options",
                .object(
                    [
                        ("challenge", .binary(Digest.randomBytes(32))),
                        (
                            "allowCredentials",
                            .array(allow.map { .object([("type", "public-key"), ("id", .binary($0))]) })
                        ),
                    ] + more)
            ),
        ])
    }

    static func credentialID(_ reply: JSONValue) throws -> [UInt8] {
        guard case .binary(let id)? = reply["credential"]?["rawId"] else {
            throw BenchError("no credential in \(reply.serializedString.prefix(200))")
        }
        return id
    }

    func ceremonyLoop() throws -> (JSONValue, (peak: Int?, now: (anonymous: Int, file: Int)?)) {
        let host = try BenchHost(hostPath: hostPath, environment: environment(token: try newToken("loop")))
        defer { host.close() }
        var results: [(String, JSONValue)] = []
        var credential: [UInt8] = []
        for kind in ["create", "get"] {
            var roundTrip = Sample()
            var own = Sample()
            var device = Sample()
            var inside = Sample()
            for i in 0..<options.ceremonies {
                let frame = (kind == "create" ? Self.createFrame("c\(i)") : Self.getFrame("g\(i)", allow: [credential]))
                    .serialized()
                let started = ContinuousClock.now
                let reply = try host.request(serialized: frame)
                let total = elapsedMilliseconds(since: started)
                if kind == "create", credential.isEmpty { credential = try Self.credentialID(reply) }
                guard case .number(let deviceMicros)? = reply["timing"]?["deviceMicros"],
                    case .number(let ceremonyMicros)? = reply["timing"]?["ceremonyMicros"]
                else {
                    throw BenchError("\(kind) failed: \(reply.serializedString.prefix(300))")
                }
                roundTrip.add(total)
                device.add(deviceMicros / 1000)
                own.add(total - deviceMicros / 1000)
                inside.add((ceremonyMicros - deviceMicros) / 1000)
            }
            let share = device.values.reduce(0, +) / roundTrip.values.reduce(0, +) * 100
            results.append(
                (
                    kind,
                    .object([
                        ("roundTrip", Self.summary(roundTrip, unit: "ms")),
                        ("insideLibfido2AndSoftToken", Self.summary(device, unit: "ms")),
                        // The host's own work on the ceremony thread (options, rules, answer), as the host measures it.
                        ("hostOwnInside", Self.summary(inside, unit: "ms")),
                        // Everything but the device, seen from the caller: adds frame transport and this side's parsing.
                        ("hostOwnWithTransport", Self.summary(own, unit: "ms")),
                        ("deviceSharePercent", .number((share * 10).rounded() / 10)),
                    ])
                ))
        }
        return (.object(results), (host.peakRSSKiB, host.residentKiB))
    }

    static func residentObject(_ resident: (anonymous: Int, file: Int)?) -> JSONValue {
        resident.map {
            .object([("anonymous", .number(Double($0.anonymous))), ("fileBacked", .number(Double($0.file)))])
        } ?? .null
    }

    /// Memory of a host as a browser session uses it: a few ceremonies on a token that holds a few credentials.
    /// The ceremony loop's peak also carries SoftToken's state for the 1,000 credentials it creates, which a
    /// host driving a USB key never holds.
    func shortSession(ceremonies: Int = 20) throws -> JSONValue {
        let host = try BenchHost(hostPath: hostPath, environment: environment(token: try newToken("session")))
        defer { host.close() }
        for i in 0..<ceremonies {
            let credential = try Self.credentialID(try host.request(Self.createFrame("c\(i)")))
            _ = try host.request(Self.getFrame("g\(i)", allow: [credential]))
        }
        return .object([
            ("createsAndGets", .number(Double(ceremonies))),
            ("peakRSSKiB", host.peakRSSKiB.map { .number(Double($0)) } ?? .null),
            ("residentKiB", Self.residentObject(host.residentKiB)),
        ])
    }

    func scaling() throws -> JSONValue {
        let host = try BenchHost(hostPath: hostPath, environment: environment(token: try newToken("scaling")))
        defer { host.close() }
        let real = try Self.credentialID(try host.request(Self.createFrame("seed")))
        var rows: [(String, JSONValue)] = []
        for size in options.listSizes {
            let others = (1..<size).map { _ in Digest.randomBytes(64) }
            for kind in ["get allow", "create exclude"] {
                var sample = Sample()
                var own = Sample()
                var outcome = "ok"
                for i in 0..<20 {
                    let frame =
                        (kind == "get allow"
                        ? Self.getFrame("s\(size)-\(i)", allow: others + [real])
                        : Self.createFrame("x\(size)-\(i)", exclude: others)).serialized()
                    let (ms, reply) = try timed { try host.request(serialized: frame) }
                    if case .string(let name)? = reply["error"]?["name"] {
                        outcome = name
                        break
                    }
                    sample.add(ms)
                    if case .number(let deviceMicros)? = reply["timing"]?["deviceMicros"] {
                        own.add(ms - deviceMicros / 1000)
                    }
                }
                // The whole time grows with the list (the key is asked batch by batch, as Chromium does);
                // the host's own share is what the bridge adds.
                rows.append(
                    (
                        "\(kind) \(size)",
                        .object([
                            ("medianMs", .number(Self.round(sample.median))),
                            ("hostOwnMedianMs", .number(Self.round(own.median))),
                            ("outcome", .string(outcome)),
                        ])
                    ))
            }
        }
        return .object(rows)
    }

    /// The largest blob whose read still fits one reply to the browser (1 MiB frames carry it as base64url).
    static let largeBlobBytes = 700 * 1024

    /// A large blob written once and read back through libfido2's fragmented largeBlobs commands, on a key with
    /// built-in UV (libfido2 1.12 wants a token for the write even on a key without a PIN).
    func largeBlob() throws -> JSONValue {
        var configuration = SoftTokenConfiguration()
        configuration.builtInUV = true
        configuration.maxSerializedLargeBlobArray = 1 << 20
        let token = scratch + "/blob.state"
        _ = try SoftToken.create(at: token, configuration: configuration, pin: nil)
        let host = try BenchHost(hostPath: hostPath, environment: environment(token: token))
        defer { host.close() }
        let credential = try Self.credentialID(
            try host.request(
                Self.createFrame(
                    "blob",
                    more: [
                        ("authenticatorSelection", .object([("residentKey", "required")])),
                        ("extensions", .object([("largeBlob", .object([("support", "required")]))])),
                    ])))
        let blob = Digest.randomBytes(Self.largeBlobBytes)
        let write: JSONValue = .object([("largeBlob", .object([("write", .binary(blob))]))])
        let writeFrame = Self.getFrame("w", allow: [credential], more: [("extensions", write)]).serialized()
        let (writeMs, written) = try timed { try host.request(serialized: writeFrame) }
        guard written["credential"]?["clientExtensionResults"]?["largeBlob"]?["written"] == .bool(true) else {
            throw BenchError("large blob write failed: \(written.serializedString.prefix(300))")
        }
        var read = Sample()
        var device = Sample()
        for i in 0..<5 {
            let frame = Self.getFrame(
                "r\(i)", allow: [credential],
                more: [("extensions", .object([("largeBlob", .object([("read", true)]))]))]
            ).serialized()
            let (ms, reply) = try timed { try host.request(serialized: frame) }
            guard case .binary(let got)? = reply["credential"]?["clientExtensionResults"]?["largeBlob"]?["blob"],
                got == blob,
                case .number(let deviceMicros)? = reply["timing"]?["deviceMicros"]
            else {
                throw BenchError("large blob read did not return the blob: \(reply.serializedString.prefix(300))")
            }
            read.add(ms)
            device.add(deviceMicros / 1000)
        }
        return .object([
            ("blobBytes", .number(Double(blob.count))), ("writeMs", .number(Self.round(writeMs))),
            ("readMedianMs", .number(Self.round(read.median))),
            ("readInsideLibfido2AndSoftTokenMedianMs", .number(Self.round(device.median))),
        ])
    }

    func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
        let started = ContinuousClock.now
        let value = try body()
        return (elapsedMilliseconds(since: started), value)
    }

    /// Frame codec throughput: JSON parse + serialize of realistic frames (the longest list a request may carry,
    /// the largest binary a frame carries), and the frame reader/writer over a pipe.
    func codec() -> JSONValue {
        let list = Self.createFrame("list", exclude: (0..<64).map { _ in Digest.randomBytes(64) })
        let blob: JSONValue = .object([
            ("id", "b"), ("type", "result"), ("credential", .binary(Digest.randomBytes(1 << 20))),
        ])
        var rows: [(String, JSONValue)] = []
        for (name, frame) in [("create with 64 excludes", list), ("1 MiB binary result", blob)] {
            let bytes = frame.serialized()
            let rounds = max(20, (40 << 20) / bytes.count)  // about 40 MiB each, so the clock sees more than noise
            let started = ContinuousClock.now
            for _ in 0..<rounds { _ = try? JSONValue.parse(bytes).serialized() }
            let seconds = elapsedMilliseconds(since: started) / 1000
            rows.append(
                (
                    name,
                    .object([
                        ("bytes", .number(Double(bytes.count))),
                        ("parseAndSerializeMBps", .number(Self.round(Double(bytes.count * rounds) / seconds / 1e6))),
                    ])
                ))
        }
        rows.append(("frames over a pipe", .object([("MBps", .number(Self.round(pipeThroughput())))])))
        return .object(rows)
    }

    func pipeThroughput() -> Double {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return .nan }
        let payload = [UInt8](repeating: 0x41, count: 64 << 10)
        let count = 256
        let writeEnd = fds[1]
        let writer = FrameWriter(fileDescriptor: writeEnd)
        let started = ContinuousClock.now
        startDetachedThread(name: "bench writer") {
            for _ in 0..<count { try? writer.write(payload) }
            close(writeEnd)
        }
        var reader = FrameReader(fileDescriptor: fds[0])
        var received = 0
        while case .message(let bytes)? = try? reader.next() { received += bytes.count }
        close(fds[0])
        return Double(received) / (elapsedMilliseconds(since: started) / 1000) / 1e6
    }

    static func summary(_ s: Sample, unit: String) -> JSONValue {
        .object([
            ("unit", .string(unit)), ("n", .number(Double(s.count))), ("p50", .number(round(s.median))),
            ("p95", .number(round(s.percentile(95)))), ("p99", .number(round(s.percentile(99)))),
        ])
    }

    static func round(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
}
