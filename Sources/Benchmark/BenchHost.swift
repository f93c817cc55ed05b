import BridgeHost
import NativeMessaging
import Processes
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A host process started the way Chromium starts it, spoken to over its pipes, for the benchmark.
final class BenchHost {
    let process: ChildProcess
    private let writer: FrameWriter
    private var reader: FrameReader

    init(hostPath: String, environment: [String: String]) throws {
        do {
            process = try ChildProcess(
                executable: hostPath, arguments: ["chrome-extension://\(ExtensionAllowList.chromiumID)/"],
                environment: environment)
        } catch {
            throw BenchError("\(error)")
        }
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

    /// The host's memory, descriptors and threads now; nil once it is gone.
    var figures: ProcessFigures? { ProcessFigures(pid: process.pid) }

    /// Peak resident set size of the host (VmHWM), in KiB.
    var peakRSSKiB: Int? { figures?.peakKiB }

    /// Resident memory now, split: anonymous (the host's own) and file-backed (code pages, shared).
    var residentKiB: (anonymous: Int, file: Int)? { figures.map { ($0.anonymousKiB, $0.fileBackedKiB) } }

    /// Asks `info`, as the extension does first: the host is up and serving once this returns.
    func info(id: String = "i") throws {
        let reply = try request(.object([("id", .string(id)), ("type", "info")]))
        guard reply["type"] == .string("result") else {
            throw BenchError("info failed: \(reply.serializedString.prefix(300))")
        }
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
