import Dispatch
import FIDO
import Glibc
import NativeMessaging
import Processes
import Prompts
import Synchronization
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The host's main loop: reads frames from the browser, answers `info` at once, runs one ceremony at a
/// time on the libfido2 thread, and keeps reading meanwhile so a `cancel` or `select` reaches it.
public final class RequestLoop: @unchecked Sendable {
    let environment: CeremonyEnvironment
    let fidoThread: FIDOThread
    let devices: any DeviceProvider
    let maxInboundFrame: Int
    /// `WEBAUTHN_BRIDGE_BENCH_TIMING=1`: result frames carry how long the ceremony spent inside libfido2 (and
    /// the key) and in total, so the benchmark can tell the host's own time apart.
    let reportTiming = ProcessInfo.processInfo.environment["WEBAUTHN_BRIDGE_BENCH_TIMING"] == "1"
    /// The ceremony (or key operation) in progress, if any: at most one at a time.
    let running = Mutex<CeremonyController?>(nil)
    /// What this connection serves, fixed by its first frame (`ConnectionMode`); read and set on the reader thread only.
    var mode: ConnectionMode?

    public init(
        configuration: HostConfiguration, log: HostLog, writer: FrameWriter, devices: any DeviceProvider,
        prompt: (any PINPrompt)?, fidoThread: FIDOThread
    ) {
        self.devices = devices
        self.fidoThread = fidoThread
        self.maxInboundFrame = configuration.maxInboundFrameBytes
        environment = CeremonyEnvironment(
            log: log, replies: ReplyChannel(writer: writer, log: log),
            rpIDValidator: RelyingPartyIDValidator(publicSuffixList: .system()),
            deviceSelector: DeviceSelector(provider: devices, log: log), prompt: prompt)
    }

    /// Serves until the browser closes the stream. Returns the process exit status:
    /// 0 at a clean end of stream, 1 when the stream broke mid-frame (it cannot be resynchronised).
    public func run(input: Int32) -> Int32 {
        var reader = FrameReader(fileDescriptor: input, maxFrameSize: maxInboundFrame)
        let log = environment.log
        TerminationSignals.watch { [self] signal in
            log.warn("stopping on \(TerminationSignals.name(signal))")
            endRunning()
            _exit(128 + signal)
        }
        while true {
            do {
                switch try reader.next() {
                case .endOfStream:
                    log.info("browser closed the connection; exiting")
                    endRunning()
                    return 0
                case .oversize(let length):
                    if mode == nil { mode = .ceremonies }  // a first frame, even one dropped, fixes the mode
                    log.warn("dropped a \(length)-byte frame: over the \(maxInboundFrame)-byte limit")
                    environment.replies.error(
                        nil,
                        WebAuthnError(
                            name: .typeError,
                            message: "Request of \(length) bytes exceeds the host's \(maxInboundFrame)-byte limit."))
                case .message(let bytes):
                    handle(bytes)
                }
            } catch {
                log.error("input stream out of sync (\(error)); exiting")
                endRunning()
                return 1
            }
        }
    }

    func handle(_ bytes: [UInt8]) {
        let opening = mode == nil
        if opening { mode = .ceremonies }  // only a well-formed `manage` as the very first frame opens key management
        let frame: JSONValue
        do { frame = try JSONValue.parse(bytes) } catch {
            let id = answerableID(Self.recoverID(bytes))  // nil, and so `"id": null`, for a select or a cancel
            environment.log.warn("unparseable frame (\(bytes.count) bytes): \(error)", request: id)
            let name: DOMExceptionName = error.reason == .invalidBinary ? .typeError : .syntax
            environment.replies.error(id, WebAuthnError(name: name, message: "The request is not valid: \(error)"))
            return
        }
        guard case .object = frame else {
            return rejectFrame(id: nil, "A request must be a JSON object.")
        }
        guard case .string(let id)? = frame["id"], !id.isEmpty else {
            return rejectFrame(id: nil, "A request needs a non-empty string \"id\".")
        }
        guard id.utf8.count <= Self.maximumIDBytes else {
            return rejectFrame(
                id: nil,
                "A request id of \(id.utf8.count) bytes is longer than the host's \(Self.maximumIDBytes)-byte limit.")
        }
        guard case .string(let type)? = frame["type"] else {
            return rejectFrame(id: answerableID(id), "A request needs a string \"type\".")
        }
        if let keyRequest = KeyRequestType(rawValue: type) {
            return handleKeyRequest(keyRequest, id: id, frame: frame, opening: opening)
        }
        let requestType = RequestType(rawValue: type)
        switch requestType {
        case .cancel: return cancel(id: id)
        case .select: return select(id: id, frame: frame)
        default: break
        }
        guard let answerable = answerableID(id) else {
            return rejectFrame(id: nil, "A \"\(type)\" request reuses the id of the request in progress.")
        }
        if mode == .keyManagement, requestType == .create || requestType == .get {
            return rejectFrame(id: answerable, "A key-management connection serves no \"\(type)\" request.")
        }
        switch requestType {
        case .create, .get: startCeremony(id: answerable, type: type, frame: frame)
        case .info:
            environment.replies.result(
                answerable, "info",
                HostInfo.report(devices: devices, log: environment.log, inboundFrameBytes: maxInboundFrame))
        default: rejectFrame(id: answerable, "Unknown request type \"\(type)\".")
        }
    }

    /// Longest request id the host echoes. Every answer repeats the id, and an answer must fit the browsers'
    /// 1 MiB frame limit together with a credential; ids the extension makes are a few dozen bytes.
    static let maximumIDBytes = 4096

    /// `id` if an answer may carry it; nil (the answer goes out with `"id": null`) for an id over the limit, and
    /// while a ceremony with that id is in progress, because that ceremony's own answer will be the one final
    /// answer for the id.
    func answerableID(_ id: String?) -> String? {
        guard let id, id.utf8.count <= Self.maximumIDBytes else { return nil }
        return running.withLock { $0?.id == id } ? nil : id
    }

    /// The request id of a frame our strict parser refused (e.g. for a bad binary value), read with a
    /// lenient parser so the page's promise still gets its answer; nil when none can be read, and for a
    /// `select` or `cancel`, whose id is another request's: an answer with it could follow that request's own.
    static func recoverID(_ bytes: [UInt8]) -> String? {
        struct Frame: Decodable {
            let id: String?
            let type: String?
        }
        guard let frame = try? JSONDecoder().decode(Frame.self, from: Data(bytes)),
            frame.type != "select", frame.type != "cancel"
        else { return nil }
        return frame.id.flatMap { $0.isEmpty ? nil : $0 }
    }

    func rejectFrame(id: String?, _ message: String) {
        environment.log.warn("rejected frame: \(message)", request: id)
        environment.replies.error(id, WebAuthnError(name: .typeError, message: message))
    }

    private func startCeremony(id: String, type: String, frame: JSONValue) {
        let controller = CeremonyController(id: id)
        guard claim(controller, type: type) else { return }
        fidoThread.submit { [self] in
            HostLog.serving(id) { runCeremony(id: id, type: type, frame: frame, controller: controller) }
        }
    }

    private func runCeremony(id: String, type: String, frame: JSONValue, controller: CeremonyController) {
        let started = ContinuousClock.now
        do throws(WebAuthnError) {
            let credential = try Self.ceremony(
                type: type, frame: frame, environment: environment, controller: controller)
            finish(controller)
            environment.replies.result(
                id, "credential", credential, timing: reportTiming ? Self.timing(controller, since: started) : nil)
            environment.log.info(
                "\(type) ok \(Self.parties(frame)) in \(Self.milliseconds(since: started)) ms", request: id)
        } catch {
            finish(controller)
            environment.replies.error(id, error)
            environment.log.info(
                "\(type) failed \(Self.parties(frame)) in \(Self.milliseconds(since: started)) ms: \(error.name.rawValue): \(error.message)",
                request: id)
        }
    }

    private static func ceremony(
        type: String, frame: JSONValue, environment: CeremonyEnvironment,
        controller: CeremonyController
    ) throws(WebAuthnError) -> JSONValue {
        guard case .string(let origin)? = frame["origin"] else {
            throw WebAuthnError(name: .typeError, message: "The request has no \"origin\".")
        }
        var topOrigin: String?
        if case .string(let top)? = frame["topOrigin"] { topOrigin = top }
        let caller = try CallerOrigin(
            origin: origin, topOrigin: topOrigin, crossOrigin: frame["crossOrigin"]?.boolValue ?? false)
        guard let options = frame["options"], case .object = options else {
            throw WebAuthnError(name: .typeError, message: "The request has no \"options\" object.")
        }
        // Run while the keys are watched: the ceremony starts over when its key is pulled out or another plugged in.
        if type == "create" {
            let parsed = try PublicKeyCredentialCreationOptions(json: options)
            return try environment.deviceSelector.followingKeys(of: controller) { () throws(WebAuthnError) in
                try RegistrationCeremony(
                    environment: environment, controller: controller, caller: caller, options: parsed
                ).run()
            }
        }
        let parsed = try PublicKeyCredentialRequestOptions(json: options)
        return try environment.deviceSelector.followingKeys(of: controller) { () throws(WebAuthnError) in
            try AuthenticationCeremony(
                environment: environment, controller: controller, caller: caller, options: parsed
            ).run()
        }
    }

    /// Makes `controller` the one request running; refuses the request (answered) when another one runs.
    func claim(_ controller: CeremonyController, type: String) -> Bool {
        let busy = running.withLock { running -> Bool in
            if running != nil { return true }
            running = controller
            return false
        }
        if busy {
            environment.log.warn("refused \(type): another request is in progress", request: controller.id)
            environment.replies.error(
                controller.id,
                WebAuthnError(name: .notAllowed, message: "Another security key request is already in progress."))
        }
        return !busy
    }

    func finish(_ controller: CeremonyController) {
        running.withLock { running in if running === controller { running = nil } }
    }

    private func cancel(id: String) {
        guard let controller = running.withLock({ $0 }), controller.id == id else {
            environment.log.debug("cancel for \(id), which is not running; ignored", request: id)
            return
        }
        environment.log.info("cancel requested", request: id)
        controller.cancel()
    }

    /// A `select` is not a request of its own: it answers the `select-account` status of the ceremony with
    /// the same id, so it never gets an answer (an error with that id would be a second final answer for the
    /// ceremony). A choice that is not a valid index ends the open chooser as declined rather than leaving it
    /// open until the ceremony times out; a `select` while no chooser is open is only logged.
    private func select(id: String, frame: JSONValue) {
        let choice = AccountChoice(frame["index"])
        guard let controller = running.withLock({ $0 }), controller.id == id else {
            environment.log.warn("select for \(id), which is not running; ignored", request: id)
            return
        }
        guard controller.deliverSelection(choice.index) else {
            environment.log.warn("select while no account choice is open; ignored", request: id)
            return
        }
        if case .invalid(let why) = choice {
            environment.log.warn("select with \(why); the account choice ends as declined", request: id)
        }
    }

    private func cancelRunning() {
        running.withLock { $0 }?.cancel()
    }

    /// Cancels the running ceremony, waits until the libfido2 thread is idle, and stops any helper process
    /// still running, so that no pinentry outlives the host. A ceremony writes its outcome line after its
    /// answer, so a browser that closes the stream right after reading the answer would otherwise cut that line
    /// off; a cancelled pinentry is interrupted, given time to put its terminal back, and killed if it will not go
    /// (`ChildProcess.terminate`, at most about 7 s), which is what the wait allows for.
    private func endRunning() {
        cancelRunning()
        let idle = DispatchSemaphore(value: 0)
        fidoThread.submit { idle.signal() }
        if idle.wait(timeout: .now() + .seconds(8)) == .timedOut {
            environment.log.warn("the running request did not end in time; stopping what it started")
        }
        LiveChildren.stopAll()
    }

    static func timing(_ controller: CeremonyController, since start: ContinuousClock.Instant) -> JSONValue {
        let total = CeremonyController.nanoseconds(ContinuousClock.now - start)
        return .object([
            ("deviceMicros", .number(Double(controller.deviceTime) / 1000)),
            ("ceremonyMicros", .number(Double(total) / 1000)),
        ])
    }

    /// "origin=… rp=…" as the page asked (rp.id defaults to the origin's host), so the outcome line of a
    /// request says on its own who asked what, even when the request was refused before any check.
    static func parties(_ frame: JSONValue) -> String {
        let origin = frame["origin"]?.stringValue
        let requested = frame["options"]?["rp"]?["id"]?.stringValue ?? frame["options"]?["rpId"]?.stringValue
        let rpID = requested ?? origin.flatMap { URLComponents(string: $0)?.host }
        return "origin=\(origin ?? "-") rp=\(rpID ?? "-")"
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}
