import NativeMessaging
import Synchronization
import WebAuthn

/// The members a status frame may carry besides `id`, `type` and `status` (extension/common/protocol-constants.js).
enum StatusField: String, CaseIterable {
    case detail
    case accounts
    case attemptsLeft
    case samplesLeft
    case sample
}

/// Builds and sends the host → extension frames of the message protocol (docs/protocol.md): any number of
/// `status` frames, then exactly one `result` or `error` per request id.
public final class ReplyChannel: Sendable {
    let writer: FrameWriter
    let log: HostLog
    /// Requests that have had a status frame, so the page shows a notice for them until they end (shared with
    /// the channel's lanes).
    private let noticed: Notices
    /// A lane's channel (one key among several) sends statuses only while this says so: once its key won.
    private let speaking: (@Sendable () -> Bool)?

    private final class Notices: Sendable {
        let ids = Mutex<Set<String>>([])
    }

    public init(writer: FrameWriter, log: HostLog) {
        self.writer = writer
        self.log = log
        noticed = Notices()
        speaking = nil
    }

    private init(laneOf channel: ReplyChannel, speaking: @escaping @Sendable () -> Bool) {
        writer = channel.writer
        log = channel.log
        noticed = channel.noticed
        self.speaking = speaking
    }

    /// Refuses, before any key is touched, a ceremony whose credential could never reach the page: it carries
    /// `clientData` base64url-encoded, and a reply over the browser's 1 MiB is refused (Chromium itself has no such
    /// limit: docs/errors.md). Without this the key would make a credential the page never receives. The rest of a
    /// reply (attestation, authenticator data, extension outputs) stays far below `replyAllowance`. The extension
    /// bounds a request the same way and hands one over it to the browser's own WebAuthn: this is the backstop.
    static func refuseUnanswerable(clientData: [UInt8]) throws(WebAuthnError) {
        guard (clientData.count * 4 + 2) / 3 + replyAllowance > FrameLimits.outbound else { return }
        throw .notAllowed(
            "The challenge is too large: the answer would exceed the 1 MiB a browser accepts from a native host.")
    }
    static let replyAllowance = 64 * 1024

    /// The channel of one key racing others: silent until `speaking` (its key won), since the user is asked to
    /// touch any key (`select-key`) and a key that did not win has nothing to say.
    func lane(speaking: @escaping @Sendable () -> Bool) -> ReplyChannel {
        ReplyChannel(laneOf: self, speaking: speaking)
    }

    func status(_ id: String, _ status: CeremonyStatus, detail: String? = nil, extra: [(String, JSONValue)] = []) {
        if let speaking, !speaking() { return }
        noticed.ids.withLock { _ = $0.insert(id) }
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("type", .string(ReplyType.status.rawValue)), ("status", .string(status.rawValue)),
        ]
        if let detail { fields.append((StatusField.detail.rawValue, .string(detail))) }
        send(.object(fields + extra), id: id)
    }

    /// `pin`: the PIN dialog is up. After a wrong PIN it carries the attempts left as a number, which the
    /// extension words ("Wrong PIN. 2 attempts left."): the host sends no sentence for it.
    func pinStatus(_ id: String, attemptsLeft: Int?) {
        status(id, .pin, extra: attemptsLeft.map { [(StatusField.attemptsLeft.rawValue, .number(Double($0)))] } ?? [])
    }

    /// Whether the page shows a notice for `id`: a status frame went out and the request has not ended.
    func hasNotice(_ id: String) -> Bool {
        noticed.ids.withLock { $0.contains(id) }
    }

    /// A status that only updates a notice already shown ("processing" right before the answer): without
    /// one it would cost the page a frame and a notice drawn and removed within the same instant.
    func updateNotice(_ id: String, _ status: CeremonyStatus) {
        if hasNotice(id) { self.status(id, status) }
    }

    func result(_ id: String, _ key: String, _ value: JSONValue, timing: JSONValue? = nil) {
        ended(id)
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("type", .string(ReplyType.result.rawValue)), (key, value),
        ]
        if let timing { fields.append(("timing", timing)) }
        sendFinal(.object(fields), id: id)
    }

    /// The page gets the DOMException name and the text Chromium gives for it (`ErrorMapping.pageMessage`);
    /// the precise reason, when it says more, goes beside it as `detail`, for the extension's own notice and
    /// never for the page (docs/errors.md).
    func error(_ id: String?, _ error: WebAuthnError) {
        if let id { ended(id) }
        sendFinal(Self.errorFrame(id: id, error), id: id)
    }

    static func errorFrame(id: String?, _ error: WebAuthnError) -> JSONValue {
        let pageMessage = ErrorMapping.pageMessage(for: error)
        var fields: [(String, JSONValue)] = [
            ("id", id.map(JSONValue.string) ?? .null), ("type", .string(ReplyType.error.rawValue)),
            ("error", .object([("name", .string(error.name.rawValue)), ("message", .string(pageMessage))])),
        ]
        if pageMessage != error.message { fields.append(("detail", .string(error.message))) }
        if error.offersRetry { fields.append(("retry", .bool(true))) }
        return .object(fields)
    }

    private func ended(_ id: String) {
        noticed.ids.withLock { _ = $0.remove(id) }
    }

    /// A status that does not fit is dropped: replacing it with an error would end a request that goes on.
    private func send(_ frame: JSONValue, id: String) {
        if case .tooLarge(let size) = write(frame, id: id) {
            log.error("status frame of \(size) bytes exceeds the browser's 1 MiB limit; not sent", request: id)
        }
    }

    /// The one final frame of a request. One that does not fit is replaced by an error with the same id (or
    /// `"id": null`, when the answer had none: a refusal quoting a huge field of a frame whose id cannot be
    /// echoed), and when even that does not fit (the id itself is too long to echo) by an error with
    /// `"id": null`: a request is always answered, and never twice.
    private func sendFinal(_ frame: JSONValue, id: String?) {
        guard case .tooLarge(let size) = write(frame, id: id) else { return }
        log.error("reply of \(size) bytes exceeds the browser's 1 MiB limit; sending an error instead", request: id)
        // Chromium has no such limit (it answers a 1 MB challenge): the page gets its catch-all, NotAllowedError,
        // and the reason goes to `detail`.
        let tooLarge = WebAuthnError(
            name: .notAllowed, message: "The response is larger than a browser accepts from a native host.")
        guard case .tooLarge = write(Self.errorFrame(id: id, tooLarge), id: id) else { return }
        log.error("the request id is too long to echo in an answer; answering with id null", request: nil)
        let unanswerable = WebAuthnError(
            name: .notSupported, message: "A request's id was too long to be echoed in its answer.")
        _ = write(Self.errorFrame(id: nil, unanswerable), id: nil)
    }

    private enum Outcome {
        case sent
        case tooLarge(Int)
        case failed
    }

    private func write(_ frame: JSONValue, id: String?) -> Outcome {
        do {
            try writer.write(frame.serialized())
            return .sent
        } catch FrameError.outboundTooLarge(let size) {
            return .tooLarge(size)
        } catch {
            log.error("cannot write to the browser: \(error)", request: id)
            return .failed
        }
    }
}
