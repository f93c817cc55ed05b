import CBOR
import CTAP
import Cryptography

/// What running a command produced: the CTAPHID_CBOR response payload, or a request to wait for the user first.
enum CommandOutcome: Equatable {
    case response([UInt8])
    /// The command needs the simulated touch, which comes after this many milliseconds (nil: when the test
    /// signals it, `PresenceMode.onSignal`). CTAPHID re-runs the command with `userTouched: true` then, so every
    /// handler collects presence before changing any state.
    case awaitingUser(milliseconds: Int?)
}

extension SoftToken {
    /// Runs one CTAP command (command byte followed by CBOR parameters). Called with `monitor` held.
    func execute(_ message: [UInt8], userTouched: Bool) -> CommandOutcome {
        guard let commandByte = message.first else { return .response([CTAPStatus.invalidLength.rawValue]) }
        if commandByte != CTAPCommand.getNextAssertion.rawValue, !userTouched { session.nextAssertions = nil }
        if commandByte != CTAPCommand.credentialManagement.rawValue,
            commandByte != CTAPCommand.credentialManagementPreview.rawValue
        {
            session.credentialEnumeration = nil
        }
        do throws(CTAPStatus) {
            let parameters = try Self.parameters(Array(message.dropFirst()))
            guard let command = CTAPCommand(rawValue: commandByte) else { throw CTAPStatus.invalidCommand }
            let reply: CBOR?
            switch command {
            case .getInfo: reply = getInfo()
            case .makeCredential: reply = try makeCredential(parameters, userTouched: userTouched)
            case .getAssertion: reply = try getAssertion(parameters, userTouched: userTouched)
            case .getNextAssertion: reply = try getNextAssertion()
            case .clientPIN: reply = try clientPIN(parameters, userTouched: userTouched)
            case .reset: reply = try reset(userTouched: userTouched)
            case .largeBlobs:
                guard state.configuration.ctap21 && state.configuration.largeBlobs else {
                    throw CTAPStatus.invalidCommand
                }
                reply = try largeBlobs(parameters)
            case .credentialManagement:
                guard hasCredentialManagement else { throw CTAPStatus.invalidCommand }
                reply = try credentialManagement(parameters, preview: false)
            // libfido2 1.12 sends the preview byte to every key with credential management, as CTAP 2.1 keys
            // made when the preview was current (YubiKey 5.2+) answer both; the subcommands are the same.
            case .credentialManagementPreview:
                guard hasCredentialManagementPreview else { throw CTAPStatus.invalidCommand }
                reply = try credentialManagement(parameters, preview: !hasCredentialManagement)
            case .selection:
                guard state.configuration.ctap21 else { throw CTAPStatus.invalidCommand }
                reply = try selection(userTouched: userTouched)
            case .config:
                guard hasConfig else { throw CTAPStatus.invalidCommand }
                reply = try authenticatorConfig(parameters)
            case .bioEnrollment:
                guard hasBioEnrollment else { throw CTAPStatus.invalidCommand }
                reply = try bioEnrollment(parameters, userTouched: userTouched)
            // As with credential management, libfido2 sends only the preview byte.
            case .bioEnrollmentPreview:
                guard hasAnyBioEnrollment else { throw CTAPStatus.invalidCommand }
                reply = try bioEnrollment(parameters, userTouched: userTouched)
            }
            var response: [UInt8] = [CTAPStatus.ok.rawValue]
            if let reply { response += reply.encode() }
            guard response.count <= state.configuration.maxMessageSize else {
                return .response([CTAPStatus.requestTooLarge.rawValue])
            }
            return .response(response)
        } catch .userActionPending {
            switch state.configuration.presence {
            case .delay(let ms): return .awaitingUser(milliseconds: ms)
            case .onSignal: return .awaitingUser(milliseconds: nil)
            case .automatic, .deny: return .response([CTAPStatus.operationDenied.rawValue])
            }
        } catch {
            return .response([error.rawValue])
        }
    }

    /// The request's CBOR map, or an empty map when the command has no parameters.
    static func parameters(_ bytes: [UInt8]) throws(CTAPStatus) -> CBOR {
        if bytes.isEmpty { return .map([]) }
        let decoded: CBOR
        do { decoded = try CBOR.decode(bytes) } catch { throw .invalidCBOR }
        guard decoded.mapValue != nil else { throw .cborUnexpectedType }
        return decoded
    }

    // MARK: - The simulated user

    /// Asks the simulated user to touch the key. Throws `.userActionPending` until the configured delay is over.
    func collectUserPresence(userTouched: Bool) throws(CTAPStatus) {
        if userTouched { return }
        switch state.configuration.presence {
        case .automatic: return
        case .deny: throw .operationDenied
        case .delay(let ms): if ms > 0 { throw .userActionPending }
        case .onSignal: throw .userActionPending
        }
    }

    /// Presence for a makeCredential or getAssertion: none is asked when the request carries a token that built-in
    /// UV made (`SessionState.tokenUserPresent`), so one fingerprint both verifies and shows the user present.
    func collectUserPresence(userTouched: Bool, withToken: Bool) throws(CTAPStatus) {
        if withToken, session.tokenUserPresent { return }
        try collectUserPresence(userTouched: userTouched)
    }

    /// performBuiltInUv(): the simulated fingerprint. It is a user interaction too, so it waits like a touch.
    /// CTAP 2.1 user verification for makeCredential/getAssertion: a valid pinUvAuthParam (for `permission`
    /// and `rpID`) or, when the platform asked for the uv option, the token's built-in UV. Returns whether the
    /// user was verified.
    func verifyUser(
        pinUvAuthParam: [UInt8]?, uvRequested: Bool, protocolVersion: Int?, clientDataHash: [UInt8],
        permission: UInt8, rpID: String, userTouched: Bool
    ) throws(CTAPStatus) -> Bool {
        if let param = pinUvAuthParam {
            try verifyPinUvAuthParam(
                param, protocolVersion: protocolVersion, message: clientDataHash,
                permission: permission, rpID: rpID)
            return true
        }
        if uvRequested {
            try performBuiltInUV(userTouched: userTouched)
            return true
        }
        return false
    }

    func performBuiltInUV(userTouched: Bool) throws(CTAPStatus) {
        guard hasBuiltInUVConfigured else { throw .invalidOption }
        guard state.uvRetries > 0 else { throw .uvBlocked }
        try collectUserPresence(userTouched: userTouched)
        switch state.configuration.uvOutcome {
        case .succeed:
            if state.uvRetries != TokenState.maxUVRetries { try commit { $0.uvRetries = TokenState.maxUVRetries } }
        case .fail:
            try commit { $0.uvRetries -= 1 }
            throw state.uvRetries == 0 ? .uvBlocked : .uvInvalid
        }
    }

    /// True when some form of user verification is configured ("protected by some form of UV" in CTAP 2.1).
    var isProtectedByUV: Bool { state.pinHash != nil || hasBuiltInUVConfigured }
}

/// Typed accessors for request maps: a wrong CBOR type is CTAP2_ERR_CBOR_UNEXPECTED_TYPE, as the spec asks.
extension CBOR {
    func bytes(_ key: Int) throws(CTAPStatus) -> [UInt8]? {
        guard let value = self[int: key] else { return nil }
        guard let bytes = value.bytesValue else { throw .cborUnexpectedType }
        return bytes
    }
    func text(_ key: Int) throws(CTAPStatus) -> String? {
        guard let value = self[int: key] else { return nil }
        guard let text = value.textValue else { throw .cborUnexpectedType }
        return text
    }
    func int(_ key: Int) throws(CTAPStatus) -> Int? {
        guard let value = self[int: key] else { return nil }
        guard let int = value.intValue else { throw .cborUnexpectedType }
        return int
    }
    func map(_ key: Int) throws(CTAPStatus) -> CBOR? {
        guard let value = self[int: key] else { return nil }
        guard value.mapValue != nil else { throw .cborUnexpectedType }
        return value
    }
    func array(_ key: Int) throws(CTAPStatus) -> [CBOR]? {
        guard let value = self[int: key] else { return nil }
        guard let array = value.arrayValue else { throw .cborUnexpectedType }
        return array
    }
    /// An option from an options map ("rk", "up", "uv").
    func bool(_ key: Int) throws(CTAPStatus) -> Bool? {
        guard let value = self[int: key] else { return nil }
        guard let bool = value.boolValue else { throw .cborUnexpectedType }
        return bool
    }
    func option(_ name: String) throws(CTAPStatus) -> Bool? {
        guard let value = self[text: name] else { return nil }
        guard let bool = value.boolValue else { throw .cborUnexpectedType }
        return bool
    }
}
