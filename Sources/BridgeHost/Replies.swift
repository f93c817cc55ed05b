import NativeMessaging
import Synchronization
import WebAuthn

/// Builds and sends the host → extension frames of DESIGN.md's message protocol: any number of
/// `status` frames, then exactly one `result` or `error` per request id.
public final class ReplyChannel: Sendable {
    let writer: FrameWriter
    let log: HostLog
    /// Requests that have had a status frame, so the page shows a notice for them until they end.
    private let noticed = Mutex<Set<String>>([])

    public init(writer: FrameWriter, log: HostLog) {
        self.writer = writer
        self.log = log
    }

    func status(_ id: String, _ status: String, detail: String? = nil, extra: [(String, JSONValue)] = []) {
        noticed.withLock { _ = $0.insert(id) }
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("type", .string("status")), ("status", .string(status))]
        if let detail { fields.append(("detail", .string(detail))) }
        send(.object(fields + extra), id: id)
    }

    /// Whether the page shows a notice for `id`: a status frame went out and the request has not ended.
    func hasNotice(_ id: String) -> Bool {
        noticed.withLock { $0.contains(id) }
    }

    /// A status that only updates a notice already shown ("processing" right before the answer): without
    /// one it would cost the page a frame and a notice drawn and removed within the same instant.
    func updateNotice(_ id: String, _ status: String) {
        if hasNotice(id) { self.status(id, status) }
    }

    func result(_ id: String, _ key: String, _ value: JSONValue, timing: JSONValue? = nil) {
        ended(id)
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("type", .string("result")), (key, value)]
        if let timing { fields.append(("timing", timing)) }
        send(.object(fields), id: id)
    }

    func error(_ id: String?, _ error: WebAuthnError) {
        if let id { ended(id) }
        let body: JSONValue = .object([("name", .string(error.name.rawValue)), ("message", .string(error.message))])
        send(.object([("id", id.map(JSONValue.string) ?? .null), ("type", .string("error")), ("error", body)]), id: id)
    }

    private func ended(_ id: String) {
        noticed.withLock { _ = $0.remove(id) }
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
