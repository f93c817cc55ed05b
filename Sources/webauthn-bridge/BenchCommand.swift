import ArgumentParser
import Benchmark
import BridgeHost
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge bench`: measures the host against a SoftToken and prints the figures.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the host: cold start, ceremonies, list scaling, codec, memory (SoftToken).")

    @Option(help: "Host launches: for the cold-start figure (default 50), or with --soak (default 1,000).")
    var launches: Int?

    @Option(help: "create and get ceremonies each, through one running host.")
    var ceremonies = 1000

    @Flag(
        help: """
            Soak instead: --pairs create+get pairs in one host session (twice: one credential replaced, a new one \
            each), then --launches host launches; prints the host's RSS, open descriptors and threads along the way.
            """)
    var soak = false

    @Option(help: "With --soak: create+get pairs per session (default 10,000).")
    var pairs: Int?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if pairs != nil, !soak { throw ValidationError("--pairs belongs to --soak") }
        if [pairs, launches, ceremonies].contains(where: { ($0 ?? 0) < 0 }) {
            throw ValidationError("counts cannot be negative")
        }
    }

    func run() throws {
        var options = HostBenchmark.Options()
        options.launches = launches ?? options.launches
        options.ceremonies = ceremonies
        let hostPath = runningExecutablePath() ?? CommandLine.arguments[0]
        let benchmark = try HostBenchmark(hostPath: hostPath, options: options)
        let progress = { (line: String) in if !json { writeToStandardError("bench: \(line)\n") } }
        let report: [(String, JSONValue)]
        if soak {
            var soakOptions = SoakOptions()
            soakOptions.pairs = pairs ?? soakOptions.pairs
            soakOptions.launches = launches ?? soakOptions.launches
            report = [("soak", .object(try benchmark.runSoak(soakOptions, progress: progress)))]
        } else {
            report = try benchmark.run(progress: progress)
        }
        let value = JSONValue.object([("host", .string(hostPath))] + report)
        print(json ? value.serializedString : BenchReport.text(value))
    }
}

/// Renders the benchmark's JSON as aligned text.
enum BenchReport {
    static func text(_ value: JSONValue, indent: String = "") -> String {
        guard case .object(let fields) = value else { return indent + value.serializedString }
        return fields.map { key, field -> String in
            if case .object(let inner) = field,
                inner.contains(where: {
                    if case .object = $0.1 { return true }
                    return false
                })
            {
                return "\(indent)\(key):\n" + text(field, indent: indent + "  ")
            }
            if case .object(let inner) = field {
                return "\(indent)\(key): " + inner.map { "\($0.0)=\($0.1.serializedString)" }.joined(separator: "  ")
            }
            return "\(indent)\(key): \(field.serializedString)"
        }.joined(separator: "\n")
    }
}
