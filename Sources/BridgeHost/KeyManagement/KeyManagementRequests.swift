import WebAuthn

/// What a connection to the host serves, fixed by its first frame.
///
/// The extension's background opens its connection with `info` and sends only the ceremony frames it builds
/// itself; the extension's Security keys page opens a connection of its own with `manage` (runtime.connectNative,
/// which no web page or content script has). A key-management request on any other connection is refused, so a
/// page that got a frame through the background could still not list or delete a passkey.
enum ConnectionMode: Sendable {
    case ceremonies
    case keyManagement
}

extension RequestLoop {
    /// A key-management frame (`KeyRequestType`): `manage` opens the mode when it is the connection's first frame;
    /// the others run, one at a time like a ceremony, on the libfido2 thread (`KeyOperation`).
    func handleKeyRequest(_ type: KeyRequestType, id: String, frame: JSONValue, opening: Bool) {
        guard let answerable = answerableID(id) else {
            return rejectFrame(id: nil, "A \"\(type.rawValue)\" request reuses the id of the request in progress.")
        }
        if type == .manage {
            guard opening else {
                return rejectFrame(id: answerable, "\"manage\" is accepted only as a connection's first frame.")
            }
            mode = .keyManagement
            environment.log.info("this connection serves key management (the extension's Security keys page)")
            return environment.replies.result(
                answerable, "manage",
                .object([
                    ("version", .string(HostInfo.version)), ("protocol", .number(Double(ProtocolVersion.current))),
                ]))
        }
        guard mode == .keyManagement else {
            return rejectFrame(id: answerable, "Unknown request type \"\(type.rawValue)\" on a ceremony connection.")
        }
        let controller = CeremonyController(id: answerable)
        guard claim(controller, type: type.rawValue) else { return }
        fidoThread.submit { [self] in
            HostLog.serving(answerable) { runKeyOperation(type, frame: frame, controller: controller) }
        }
    }

    private func runKeyOperation(_ type: KeyRequestType, frame: JSONValue, controller: CeremonyController) {
        let started = ContinuousClock.now
        let operation = KeyOperation(environment: environment, controller: controller, devices: devices)
        do throws(WebAuthnError) {
            let (member, value) = try operation.run(type, frame: frame)
            finish(controller)
            environment.replies.result(controller.id, member, value)
            environment.log.info(
                "\(type.rawValue) ok in \(Self.milliseconds(since: started)) ms", request: controller.id)
        } catch {
            finish(controller)
            environment.replies.error(controller.id, error)
            environment.log.info(
                "\(type.rawValue) failed in \(Self.milliseconds(since: started)) ms: \(error.name.rawValue): \(error.message)",
                request: controller.id)
        }
    }
}
