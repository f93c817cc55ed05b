import ArgumentParser
import BridgeHost
import Diagnostics
import Glibc

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge log`: the host log across its rotated files, optionally one request's lines, optionally
/// followed as it grows.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log", abstract: "Print the host log (oldest first), or follow it.")

    @Flag(help: "Keep printing lines as they are written (across rotations).")
    var follow = false

    @Option(help: "Only the lines of this request id.")
    var request: String?

    func run() throws {
        let configuration = try HostConfiguration.load()
        let reader = LogReader(path: configuration.logFile)
        // The log holds ids escaped, so the id asked for is looked up escaped.
        let keep = { (line: String) in request.map { LogReader.line(line, isFor: LogText.escaped($0)) } ?? true }
        let colour = isatty(1) == 1
        let (lines, followPoint) = reader.contents()
        for line in lines where keep(line) { print(Self.render(line, colour: colour)) }
        if follow {
            fflush(nil)
            reader.follow(from: followPoint) { line in
                guard keep(line) else { return }
                print(Self.render(line, colour: colour))
                fflush(nil)  // a pipe reader sees each line at once
            }
        }
    }

    /// Escapes what the line holds again (an old log file or another writer may hold raw control characters:
    /// none may reach the terminal), then colours the level in a terminal, so failures stand out.
    static func render(_ raw: String, colour: Bool) -> String {
        let line = LogText.escaped(raw, backslashes: false)
        guard colour else { return line }
        for (level, code) in [(" ERROR ", "31"), (" WARN ", "33"), (" TRACE ", "2")] where line.contains(level) {
            return line.replacing(level, with: " \u{1B}[\(code)m\(level.filter { $0 != " " })\u{1B}[0m ")
        }
        return line
    }
}
