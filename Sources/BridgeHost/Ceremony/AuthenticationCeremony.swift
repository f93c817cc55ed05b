import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// navigator.credentials.get(): WebAuthn L3 §5.1.4 as the client, then authenticatorGetAssertion.
struct AuthenticationCeremony {
    let environment: CeremonyEnvironment
    let controller: CeremonyController
    let caller: CallerOrigin
    let options: PublicKeyCredentialRequestOptions

    func run() throws(WebAuthnError) -> JSONValue {
        let log = environment.log
        let id = controller.id
        // Chromium's order (docs/errors.md): Blink's refusals of the extension inputs, then what its browser
        // process checks (origin, rp.id, AppID, then the rest of the inputs), then the host's own limits.
        let allowList = options.allowCredentials.map(\.id)
        let extensionInputs = try AuthenticationExtensionInputs(options.extensions, allowCredentials: allowList)
        let rpID = try environment.rpIDValidator.effectiveRPID(requested: options.rpId, for: caller)
        let appid = try extensionInputs.appid.map { (a) throws(WebAuthnError) in
            try AppIDExtension.validate(a, rpID: rpID, caller: caller, validator: environment.rpIDValidator)
        }
        if let refusal = extensionInputs.refusalAfterRelyingParty { throw refusal }
        // The first attempt's deadline, kept when the ceremony starts over on another key (KeyWatch).
        let deadline = environment.deviceSelector.deadline(
            for: controller, .after(.milliseconds(Timeouts.effective(milliseconds: options.timeoutMilliseconds))))
        let clientData = ClientDataJSON.make(type: .get, challenge: options.challenge, caller: caller)
        try ReplyChannel.refuseUnanswerable(clientData: clientData)
        log.info(
            "get origin=\(caller.serialized) rp=\(rpID) allow=\(options.allowCredentials.count) uv=\(options.userVerification)",
            request: id)
        let prepared = Prepared(
            rpID: rpID, deadline: deadline, clientData: clientData, allowList: allowList,
            extensionInputs: extensionInputs, appid: appid)
        return try environment.onEveryKey(of: controller, deadline: deadline) {
            [self] (device, environment, lane) throws(WebAuthnError) in
            try AuthenticationCeremony(environment: environment, controller: lane, caller: caller, options: options)
                .attempt(on: device, prepared)
        }
    }

    /// What the request asks, decided before any key is touched.
    struct Prepared: Sendable {
        let rpID: String
        let deadline: Deadline
        let clientData: [UInt8]
        let allowList: [[UInt8]]
        let extensionInputs: AuthenticationExtensionInputs
        let appid: String?
    }

    /// The ceremony on one key (one of several, when they race).
    private func attempt(on device: Device, _ prepared: Prepared) throws(WebAuthnError) -> JSONValue {
        let log = environment.log
        let id = controller.id
        let (rpID, deadline, clientData) = (prepared.rpID, prepared.deadline, prepared.clientData)
        let (allowList, extensionInputs, appid) = (prepared.allowList, prepared.extensionInputs, prepared.appid)
        if allowList.isEmpty, !device.isFIDO2 {
            // A U2F key holds no discoverable credentials; as Chromium, it is refused once the user touched it.
            try controller.collectTouch(on: device, replies: environment.replies, deadline: deadline)
            throw WebAuthnError(
                name: .notAllowed, message: "This security key cannot store passkeys, so it holds none for this site."
            ).retryable()
        }
        let extensions = AuthenticationExtensions(inputs: extensionInputs, info: device.info)
        var request = AssertionRequest(clientDataJSON: clientData, rpID: rpID, allowList: allowList)
        let preflight = CredentialListPreflight(
            device: device, controller: controller, rpID: rpID, clientData: clientData)
        let usedAppID = try useAppID(appid, request, on: device, deadline: deadline)
        if usedAppID, let appid { request.rpID = appid }
        // The key is asked silently which of the ids it holds (in batches when the list does not fit one request),
        // and the ceremony names the one found; without a list, whether it holds a passkey for the rp. When none is,
        // it still goes through the steps it would have (PIN, then a touch) and fails only after them: until the
        // user acts, nothing shows whether the key holds one. So the touches never depend on whether the key says
        // "no credentials" before or after its touch (CTAP 2.0 and 2.1 differ). (A key holding one under the AppID
        // said so to `useAppID`, and is asked the whole list.)
        var unheld: CredentialBatches?
        var finding: CredentialListPreflight.Finding?
        let batches = CredentialBatches(allowList, info: device.info)
        if allowList.isEmpty {
            finding = preflight.discoverableFinding()
        } else if !usedAppID {
            finding = preflight.finding(in: batches)
            switch finding {
            case .held(let id?): request.allowList = [id]
            case .held(nil), nil: break
            case .notHeld, .unknown: if !batches.fitsOneRequest { unheld = batches }
            }
        }
        if unheld == nil, finding != .notHeld {
            request.allowList = try extensionCredentialChoice(extensions, request, on: device, deadline: deadline)
        }
        request.extensions = extensions.ctap(for: request.allowList.count == 1 ? request.allowList[0] : nil)
        let runner = environment.verifier(controller: controller, rpID: rpID, origin: caller.serialized)
        let method = try runner.plan(
            extensions.userVerification(options.userVerification), device: device,
            ceremony: .getAssertion(discoverable: request.allowList.isEmpty),
            deadline: deadline)
        if finding == .notHeld, method == .none {
            // Nothing verifies the user, so no credential the silent look missed could show: the key gets only a touch
            // request, and is refused once touched (Chromium's dummy touch in GetAssertionTask): one touch, as a key
            // holding the credential takes, whether the key would say "no credentials" before its touch or after.
            // (Chromium sends a list that fits one request as it is, so there a CTAP 2.1 key holding none ends the
            // request untouched, beside keys the user has not reached yet.)
            let holds = allowList.isEmpty ? "no passkey for \(rpID)" : "none of the allowed credentials"
            log.info("\(device.location.path) holds \(holds): a touch, then the refusal", request: id)
            try controller.collectTouch(
                on: device, replies: environment.replies, deadline: deadline,
                statuses: UserVerificationRunner.waits(for: method))
            throw ErrorMapping.noCredential
        }
        // With the PIN the silent look is asked again, and decides as above: the request for the one it finds, or
        // one touch before the refusal. (Built-in UV cannot be asked silently: the request itself verifies.)
        if finding == .notHeld, method == .pin { unheld = batches }
        var written: JSONValue?
        var askedWithPresence = false
        let assertions = try runner.run(on: device, method: method, deadline: deadline) {
            (pin, builtInUV) throws(FIDOError) -> [Assertion] in
            var r = request
            r.builtInUV = builtInUV
            if let unheld {
                // Nothing to ask the key for; a PIN is still checked by it, and may show a credential that hides
                // from an unverified caller (credProtect).
                guard let pin else { return [] }
                if r.allowList.isEmpty {
                    guard try preflight.holdsDiscoverable(verifiedWith: pin) else { return [] }
                } else {
                    guard let found = try preflight.heldCredential(in: unheld, verifiedWith: pin) else { return [] }
                    r.allowList = [found]
                }
            }
            do throws(FIDOError) {
                askedWithPresence = true
                let found = try device.getAssertions(r, pin: pin)
                // A write needs the PIN the assertion just used, so it happens here (one allowed credential).
                if case .write(let blob)? = extensionInputs.largeBlob, let only = found.first {
                    written = try LargeBlobExtension.perform(
                        .write(blob), key: only.largeBlobKey, on: device,
                        pin: pin, log: log, request: id)
                }
                return found
            } catch {
                if error.code == FIDOError.noCredentials { return [] }
                throw error
            }
        }
        if !assertions.isEmpty, !controller.claim() { throw ErrorMapping.lostRace }
        if assertions.isEmpty, method == .builtIn, unheld == nil {
            // The request verified the user on this key (a finger on it) before the key said "no credential": the user
            // acted, and the refusal comes at once, as Chromium's after the built-in-UV token.
            guard controller.claim() else { throw ErrorMapping.lostRace }
            throw ErrorMapping.noCredential
        }
        if assertions.isEmpty, askedWithPresence, device.isFIDO2, !device.info.versions.contains("FIDO_2_1") {
            // Only when the silent look could not tell: a CTAP 2.0 key says "no credentials" once touched (CTAP 2.0
            // §5.2), and that touch was the user's act. (A CTAP 2.1 key says it at once, §6.2.2: below.)
            guard controller.claim() else { throw ErrorMapping.lostRace }
            throw ErrorMapping.noCredential
        }
        if assertions.isEmpty {
            // Never tell the page "no credential" before the user touched the key (it would reveal
            // which credentials the key holds); a key may answer at once, so collect a touch first, announced as
            // the wait on a key that holds one would have been.
            try controller.collectTouch(
                on: device, replies: environment.replies, deadline: deadline,
                statuses: UserVerificationRunner.waits(for: method))
            throw ErrorMapping.noCredential
        }
        // The key answered: a key plugged in while the user chooses an account is not asked (KeyWatch).
        environment.deviceSelector.watches[id]?.answered()
        let chosen = try choose(among: assertions, deadline: deadline)
        var largeBlob = written
        if largeBlob == nil { largeBlob = try readLargeBlob(extensionInputs, chosen, on: device, deadline: deadline) }
        environment.replies.updateNotice(id, .processing)
        log.info(
            "signed in with a \(chosen.credentialID.count)-byte credential id (\(assertions.count) matched)",
            request: id)
        return CredentialJSON.assertion(
            credentialID: chosen.credentialID, clientDataJSON: clientData, authenticatorData: chosen.authenticatorData,
            signature: chosen.signature, userHandle: chosen.userID,
            extensionResults: extensions.outputs(chosen, largeBlob: largeBlob, appid: appid.map { _ in usedAppID }))
    }

    /// Several discoverable credentials: the user picks the account, as in a browser's account chooser.
    private func choose(among assertions: [Assertion], deadline: Deadline) throws(WebAuthnError) -> Assertion {
        guard assertions.count > 1 else { return assertions[0] }
        let accounts: [JSONValue] = assertions.map { a in
            .object([
                ("name", .string(a.userName ?? "")), ("displayName", .string(a.userDisplayName ?? "")),
                ("id", a.userID.map(JSONValue.binary) ?? .null),
            ])
        }
        controller.expectSelection()
        environment.replies.status(controller.id, .selectAccount, extra: [("accounts", .array(accounts))])
        switch controller.awaitSelection(until: deadline) {
        case .chosen(let index?) where assertions.indices.contains(index): return assertions[index]
        case .chosen(let index?):
            throw WebAuthnError(name: .notAllowed, message: "Account choice \(index) is out of range.")
        case .chosen(nil): throw WebAuthnError(name: .notAllowed, message: "No account was chosen.")
        case .cancelled: throw ErrorMapping.aborted
        case .timedOut: throw ErrorMapping.timeout
        }
    }
}
