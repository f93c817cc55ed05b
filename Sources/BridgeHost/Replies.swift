import NativeMessaging
import WebAuthn

/// Builds and sends the host → extension frames of DESIGN.md's message protocol: any number of
/// `status` frames, then exactly one `result` or `error` per request id.
public final class ReplyChannel: Sendable {
    let writer: FrameWriter
    let log: HostLog

    public init(writer: FrameWriter, log: HostLog) {
        self.writer = writer
        self.log = log
    }

    func status(_ id: String, _ status: String, detail: String? = nil, extra: [(String, JSONValue)] = []) {
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("type", .string("status")), ("status", .string(status))]
        if let detail { fields.append(("detail", .string(detail))) }
        send(.object(fields + extra), id: id)
    }

    func result(_ id: String, _ key: String, _ value: JSONValue, timing: JSONValue? = nil) {
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("type", .string("result")), (key, value)]
        if let timing { fields.append(("timing", timing)) }
        send(.object(fields), id: id)
    }

    func error(_ id: String?, _ error: WebAuthnError) {
        let body: JSONValue = .object([("name", .string(error.name.rawValue)), ("message", .string(error.message))])
        send(.object([("id", id.map(JSONValue.string) ?? .null), ("type", .string("error")), ("error", body)]), id: id)
    }

    private func send(_ frame: JSONValue, id: String?) {
        do {
            try writer.write(frame.serialized())
        } catch FrameError.outboundTooLarge(let size) {
            // Browsers drop a host message over 1 MiB; the page must still get an answer.
            log.error("reply of \(size) bytes exceeds the 1 MiB browser limit; sending an error instead", request: id)
            try? writer.write(JSONValue.object([
                ("id", id.map(JSONValue.string) ?? .null), ("type", .string("error")),
                ("error", .object([("name", .string("NotSupportedError")),
                                   ("message", .string("The response is larger than a browser accepts from a native host."))])),
            ]).serialized())
        } catch {
            log.error("cannot write to the browser: \(error)", request: id)
        }
    }
}
