import BridgeHost
import Glibc
import NativeMessaging
import Processes
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Starts an installed host exactly as a browser would and asks it for `info`: the proof that a manifest
/// points at a host that really runs.
enum HostProbe {
    static func info(arguments: [String], timeout: TimeInterval = 5) -> Result<String, ProbeError> {
        let process: ChildProcess
        do {
            process = try ChildProcess(
                executable: arguments[0], arguments: Array(arguments.dropFirst()),
                environment: ProcessInfo.processInfo.environment)
        } catch {
            return .failure(ProbeError("cannot start it: \(error)"))
        }
        // A child that died early makes the write fail with EPIPE (Doctor.run ignores SIGPIPE); the missing reply
        // then says so.
        try? FrameWriter(fileDescriptor: process.input).write(Array(#"{"id":"doctor","type":"info"}"#.utf8))
        process.closeInput()
        guard process.waitForExit(seconds: timeout) else {
            process.terminate()
            return .failure(ProbeError("no answer within \(Int(timeout)) s"))
        }
        var reader = FrameReader(fileDescriptor: process.output)
        guard case .message(let reply)? = try? reader.next(), let object = try? JSONValue.parse(reply),
            let version = object["info"]?["version"]?.stringValue
        else {
            let status = process.exitStatus.map { ($0 >> 8) & 0xff } ?? -1
            return .failure(
                ProbeError("it exited with status \(status) without an info reply (is the extension id allowed?)"))
        }
        return .success(version)
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
