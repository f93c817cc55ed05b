import ArgumentParser
import Benchmark
import BridgeHost
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WebAuthn

/// `webauthn-bridge bench`: measures the host against a SoftToken and prints the figures.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure the host: cold start, ceremonies, list scaling, codec, memory (SoftToken).")

    @Option(help: "Host launches for the cold-start figure.")
    var launches = 50

    @Option(help: "create and get ceremonies each, through one running host.")
    var ceremonies = 1000

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        var options = HostBenchmark.Options()
        options.launches = launches
        options.ceremonies = ceremonies
        let hostPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let benchmark = try HostBenchmark(hostPath: hostPath, options: options)
        let report = try benchmark.run { line in if !json { writeToStandardError("bench: \(line)\n") } }
        let value = JSONValue.object([("host", .string(hostPath))] + report)
        print(json ? value.serializedString : BenchReport.text(value))
    }
}

/// Renders the benchmark's JSON as aligned text.
enum BenchReport {
    static func text(_ value: JSONValue, indent: String = "") -> String {
        guard case .object(let fields) = value else { return indent + value.serializedString }
        return fields.map { key, field -> String in
            if case .object(let inner) = field, inner.contains(where: { if case .object = $0.1 { return true }; return false }) {
                return "\(indent)\(key):\n" + text(field, indent: indent + "  ")
            }
            if case .object(let inner) = field {
                return "\(indent)\(key): " + inner.map { "\($0.0)=\($0.1.serializedString)" }.joined(separator: "  ")
            }
            return "\(indent)\(key): \(field.serializedString)"
        }.joined(separator: "\n")
    }
}
