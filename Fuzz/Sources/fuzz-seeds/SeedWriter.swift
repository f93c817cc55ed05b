import CBOR
import FuzzSupport
import Glibc

/// Turns recorded exchanges into seed files, one directory per fuzz target, in the input format each target
/// documents. File names say what was recorded, so a new recording replaces the old one.
struct SeedWriter {
    let root: String

    init(root: String) {
        self.root = root
        mkdir(root, 0o755)
    }

    func exchange(_ name: String, _ reports: (sent: [[UInt8]], received: [[UInt8]])) {
        // fuzz-ctaphid: control byte "connection 0, read after this report", then the report.
        write(reports.sent.flatMap { [0x02] + $0 }, "fuzz-ctaphid", name)
        let requests = Recorder.cborMessages(reports.sent)
        let responses = Recorder.cborMessages(reports.received)
        write(requests.flatMap(lengthPrefixed), "fuzz-ctap-commands", name)
        for (index, (request, response)) in zip(requests, responses).enumerated() {
            let tag = "\(name)-\(index)-cmd\(request[0])"
            if request.count > 1 { write(Array(request.dropFirst()), "fuzz-cbor", tag + "-request") }
            guard response.first == 0, response.count > 1 else { continue }
            let body = Array(response.dropFirst())
            write(body, "fuzz-cbor", tag + "-response")
            authenticatorOutput(command: request[0], body: body, tag: tag)
        }
    }

    /// getInfo bodies, authenticator data and attestation statements in fuzz-authenticator-output's format.
    private func authenticatorOutput(command: UInt8, body: [UInt8], tag: String) {
        if command == 0x04 { write([2] + body, "fuzz-authenticator-output", tag + "-getinfo") }
        guard command == 0x01 || command == 0x02, let map = try? CBOR.decode(body),
            let authData = map[int: 2]?.bytesValue
        else { return }
        write([0] + authData, "fuzz-authenticator-output", tag + "-authdata")
        if command == 0x01, let statement = map[int: 3] {
            // Format byte 0 is "packed", the format SoftToken (like most keys) uses.
            write(
                [1, 0] + lengthPrefixed(authData) + statement.encode(), "fuzz-authenticator-output",
                tag + "-attestation")
            write(statement.encode(), "fuzz-cbor", tag + "-attstmt")
        }
    }

    /// The token's files after the session, in fuzz-softtoken-state's format.
    func stateFiles(_ scratch: ScratchDirectory) {
        guard let state = scratch.read("token.state") else { fatalError("the token wrote no state file") }
        let journal = scratch.read("token.state.journal")
        let counters = scratch.read("token.state.counters")
        let present: UInt8 = (journal == nil ? 0 : 1) | (counters == nil ? 0 : 2)
        write(
            [present] + lengthPrefixed(state) + lengthPrefixed(journal ?? []) + (counters ?? []),
            "fuzz-softtoken-state", "after-session")
        write([0] + lengthPrefixed(state), "fuzz-softtoken-state", "state-file-only")
    }

    private func write(_ bytes: [UInt8], _ target: String, _ name: String) {
        let directory = "\(root)/\(target)"
        mkdir(directory, 0o755)
        ScratchDirectory.writeFile(bytes, to: "\(directory)/\(name)")
    }
}
