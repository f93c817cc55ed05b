import CFIDO2
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Process-wide libfido2 set-up and its debug-log hook.
///
/// libfido2 keeps its debug flag and log handler in thread-local storage, so `attachLogging`
/// must run on the thread that makes the libfido2 calls (see `FIDOThread`).
public enum FIDOLibrary {
    /// Where libfido2's debug lines go (one call per line, trailing newline removed).
    public typealias LogSink = @Sendable (String) -> Void

    private static let sink = Mutex<LogSink?>(nil)

    /// The version of the libfido2 loaded at run time ("1.12.0"), read from the mapped shared object's
    /// file name because libfido2 exports no version call.
    public static var version: String {
        // /proc files report size 0, so read line by line rather than through Foundation's file APIs.
        guard let maps = fopen("/proc/self/maps", "r") else { return "unknown" }
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let line {
            let text = String(cString: line)
            guard text.contains("/libfido2.so"), let path = text.split(separator: " ").last else { continue }
            var resolved = String(path.filter { !$0.isWhitespace })  // the line's newline
            if let real = realpath(resolved, nil) {
                resolved = String(cString: real)
                free(real)
            }
            guard let range = resolved.firstRange(of: ".so.") else { return "unknown" }
            return String(resolved[range.upperBound...])
        }
        return "unknown"
    }

    /// Initialises libfido2 on the calling thread; with a sink, its debug output (CTAP frames in hex,
    /// which contain rp ids and user ids — a trace, never on by default) is routed there.
    public static func attachLogging(to logSink: LogSink?) {
        sink.withLock { $0 = logSink }
        // libfido2 turns on its own hex dumps to stderr when FIDO_DEBUG is set in the environment, whatever
        // the flags; they would carry encrypted PINs and tokens past the redacting trace, so the variable goes.
        unsetenv("FIDO_DEBUG")
        fido_init(logSink == nil ? 0 : FIDO_DEBUG)
        if logSink != nil { fido_set_log_handler(forwardLogLine) }
    }

    /// Gives the calling thread what `attachLogging` gave the first: for a thread that drives one key while
    /// others drive theirs. libfido2 keeps each device's state in its own handle and only the log set-up per
    /// thread, so independent handles may be used from different threads at once.
    public static func attachLoggingToThisThread() {
        let logging = sink.withLock { $0 != nil }
        fido_init(logging ? FIDO_DEBUG : 0)
        if logging { fido_set_log_handler(forwardLogLine) }
    }
}

private func forwardLogLine(_ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var text = String(cString: line)
    while text.hasSuffix("\n") { text.removeLast() }
    FIDOLibrary.deliver(text)
}

extension FIDOLibrary {
    fileprivate static func deliver(_ text: String) {
        let current = sink.withLock { $0 }
        current?(text)
    }
}
