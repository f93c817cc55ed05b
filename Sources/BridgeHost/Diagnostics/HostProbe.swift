import Foundation

/// Starts an installed host exactly as a browser would and asks it for `info`: the proof that a manifest
/// points at a host that really runs.
enum HostProbe {
    static func info(arguments: [String], timeout: TimeInterval = 5) -> Result<String, ProbeError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(ProbeError("cannot start it: \(error.localizedDescription)")) }
        let request = Array(#"{"id":"doctor","type":"info"}"#.utf8)
        var length = UInt32(request.count)
        input.fileHandleForWriting.write(Data(bytes: &length, count: 4) + Data(request))
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            return .failure(ProbeError("no answer within \(Int(timeout)) s"))
        }
        let reply = output.fileHandleForReading.readDataToEndOfFile()
        guard reply.count > 4,
              let object = try? JSONSerialization.jsonObject(with: reply.dropFirst(4)) as? [String: Any],
              let info = object["info"] as? [String: Any], let version = info["version"] as? String else {
            return .failure(ProbeError("it exited with status \(process.terminationStatus) without an info reply (is the extension id allowed?)"))
        }
        return .success(version)
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
