import Glibc
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge bench --soak`: many ceremonies through one host session and many host launches, with the
/// host's memory, open descriptors and threads sampled along the way, so growth shows and can be told apart.
///
/// Two ceremony runs: one replaces a single discoverable credential on every create (the token stays one
/// credential long, so what grows is the host's), one makes a new credential each time as a site would (the
/// token's records and files grow by design).
public struct SoakOptions: Sendable {
    public var pairs = 10_000
    public var launches = 1_000
    /// Samples taken between the start and the end of each run.
    public var samples = 10
    public init() {}
}

extension HostBenchmark {
    public func runSoak(_ soak: SoakOptions, progress: (String) -> Void) throws -> [(String, JSONValue)] {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var report: [(String, JSONValue)] = []
        report.append(("pairsOneCredential", try soakPairs(soak, newCredentialEach: false, progress: progress)))
        report.append(("pairsNewCredentials", try soakPairs(soak, newCredentialEach: true, progress: progress)))
        report.append(("launches", try soakLaunches(soak, progress: progress)))
        return report
    }

    /// Sample points: the start (host up, `info` answered), after the first pair (start-up work done), every
    /// `pairs / samples`, and the end.
    static func samplePoints(_ count: Int, samples: Int) -> Set<Int> {
        let step = max(1, count / max(1, samples))
        return Set([0, min(1, count), count] + Array(stride(from: step, to: count, by: step)))
    }

    func soakPairs(_ soak: SoakOptions, newCredentialEach: Bool, progress: (String) -> Void) throws -> JSONValue {
        let run = newCredentialEach ? "new" : "one"  // in request ids, unique over the log all hosts share
        let token = try newToken("soak-\(run)")
        let host = try BenchHost(hostPath: hostPath, environment: environment(token: token))
        defer { host.close() }
        try host.info()
        // Same rp and user.id each time: a discoverable create replaces the token's one credential.
        let discoverable: [(String, JSONValue)] = [("authenticatorSelection", .object([("residentKey", "required")]))]
        let points = Self.samplePoints(soak.pairs, samples: soak.samples)
        var samples: [(String, JSONValue)] = []
        let started = ContinuousClock.now
        for pair in 0...soak.pairs {
            if points.contains(pair) {
                // The outcome line of a ceremony follows its answer (on the libfido2 thread, which may also rotate
                // the log then): sampled once it is written, the host is between requests.
                if pair > 0 { try waitUntilLogged("[\(run)-g\(pair - 1)] get ok") }
                guard let figures = host.figures else { throw BenchError("the host is gone after \(pair) pairs") }
                samples.append(("after \(pair)", Self.sample(figures, tokenBytes: Self.tokenFileBytes(token))))
                if pair > 0 {
                    progress("soak: \(pair) pairs (\(newCredentialEach ? "new credential each" : "one credential"))")
                }
            }
            guard pair < soak.pairs else { break }
            let created = try host.request(
                Self.createFrame("\(run)-c\(pair)", more: newCredentialEach ? [] : discoverable))
            let credential = try Self.credentialID(created)
            let got = try host.request(Self.getFrame("\(run)-g\(pair)", allow: [credential]))
            guard got["type"] == .string("result") else {
                throw BenchError("get \(pair) failed: \(got.serializedString.prefix(300))")
            }
        }
        return .object([
            ("pairs", .number(Double(soak.pairs))),
            ("seconds", .number(Self.round(elapsedMilliseconds(since: started) / 1000))),
            ("samples", .object(samples)),
        ])
    }

    /// Launches the host as Chromium does, each answering `info`; samples the launched hosts, this process (the
    /// launcher: its pipes and children must not pile up either) and the host log, which every launch appends to.
    func soakLaunches(_ soak: SoakOptions, progress: (String) -> Void) throws -> JSONValue {
        let token = try newToken("soak-launches")
        let log = scratch + "/host.log"
        let points = Self.samplePoints(soak.launches, samples: soak.samples)
        guard let launcherStart = ProcessFigures(pid: getpid()) else { throw BenchError("cannot read /proc/self") }
        let logStart = Self.fileBytes(log)
        var hosts: [(String, JSONValue)] = []
        let started = ContinuousClock.now
        for launch in stride(from: 1, through: soak.launches, by: 1) {
            let host = try BenchHost(hostPath: hostPath, environment: environment(token: token))
            try host.info()
            if points.contains(launch) {
                guard let figures = host.figures else { throw BenchError("launch \(launch) is gone after info") }
                hosts.append(("launch \(launch)", Self.sample(figures, tokenBytes: nil)))
                progress("soak: \(launch) launches")
            }
            host.close()
        }
        guard let launcherEnd = ProcessFigures(pid: getpid()) else { throw BenchError("cannot read /proc/self") }
        return .object([
            ("launches", .number(Double(soak.launches))),
            ("seconds", .number(Self.round(elapsedMilliseconds(since: started) / 1000))),
            ("hosts", .object(hosts)),
            (
                "launcher",
                .object([
                    ("start", Self.sample(launcherStart, tokenBytes: nil)),
                    ("end", Self.sample(launcherEnd, tokenBytes: nil)),
                ])
            ),
            (
                "hostLogBytes",
                .object([
                    ("start", .number(Double(logStart))),
                    ("end", .number(Double(Self.fileBytes(log)))),
                ])
            ),
        ])
    }

    /// Waits (10 s at most) until the last lines of the host log contain `text`.
    func waitUntilLogged(_ text: String) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.tail(of: scratch + "/host.log").contains(text) {
            guard ContinuousClock.now < deadline else { throw BenchError("the host never logged \"\(text)\"") }
            usleep(1000)
        }
    }

    /// The last 2 KiB of a file, as text.
    static func tail(of path: String) -> String {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return "" }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = pread(file, &buffer, buffer.count, max(0, lseek(file, 0, SEEK_END) - off_t(buffer.count)))
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    static func sample(_ figures: ProcessFigures, tokenBytes: Int?) -> JSONValue {
        guard case .object(var fields) = figures.json else { return figures.json }
        if let tokenBytes { fields.append(("tokenFilesBytes", .number(Double(tokenBytes)))) }
        return .object(fields)
    }

    /// A SoftToken's state file with its journal and counter file (docs/softtoken.md, "State file").
    static func tokenFileBytes(_ path: String) -> Int {
        [path, path + ".journal", path + ".counters"].map(fileBytes).reduce(0, +)
    }

    static func fileBytes(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
