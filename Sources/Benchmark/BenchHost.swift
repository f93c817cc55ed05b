#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BridgeHost
import NativeMessaging
import Prompts
import WebAuthn

/// A host process started the way Chromium starts it, spoken to over its pipes, for the benchmark.
final class BenchHost {
    let process: ChildProcess
    private let writer: FrameWriter
    private var reader: FrameReader

    init(hostPath: String, environment: [String: String]) throws {
        process = try ChildProcess(executable: hostPath, arguments: ["chrome-extension://\(ExtensionAllowList.chromiumID)/"],
                                   environment: environment)
        writer = FrameWriter(fileDescriptor: process.input, maxFrameSize: 8 << 20)
        reader = FrameReader(fileDescriptor: process.output, maxFrameSize: 8 << 20)
    }

    /// Sends one request and reads frames until its result or error.
    func request(_ frame: JSONValue) throws -> JSONValue { try request(serialized: frame.serialized()) }

    /// As `request(_:)`, for a frame serialized beforehand, so a timed request does not count this side's
    /// encoding of a large frame as the host's time.
    func request(serialized frame: [UInt8]) throws -> JSONValue {
        try writer.write(frame)
        while true {
            guard case .message(let bytes) = try reader.next() else { throw BenchError("the host closed its output") }
            let reply = try JSONValue.parse(bytes)
            if reply["type"] != .string("status") { return reply }
        }
    }

    /// Peak resident set size of the host (VmHWM), in KiB.
    var peakRSSKiB: Int? { statusField("VmHWM") }

    /// Resident memory now, split: anonymous (heap, stacks: the host's own) and file-backed (code pages of the
    /// executable and libraries, clean and shared with the page cache).
    var residentKiB: (anonymous: Int, file: Int)? {
        guard let anonymous = statusField("RssAnon"), let file = statusField("RssFile") else { return nil }
        return (anonymous, file)
    }

    /// A "Name:   123 kB" line of /proc/PID/status, in KiB.
    func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    func close() {
        process.closeInput()
        // The host exits on EOF; ChildProcess escalates only if it does not.
        _ = process.waitForExit(seconds: 10)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Order statistics over a sample, in the sample's unit.
struct Sample {
    private(set) var values: [Double] = []
    mutating func add(_ v: Double) { values.append(v) }
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1  // nearest-rank percentile
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
    var median: Double { percentile(50) }
    var count: Int { values.count }
}

func elapsedMilliseconds(since start: ContinuousClock.Instant) -> Double {
    (ContinuousClock.now - start) / .milliseconds(1)
}
