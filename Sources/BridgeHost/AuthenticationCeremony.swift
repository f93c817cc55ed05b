import FIDO
import Foundation
import WebAuthn

/// navigator.credentials.get(): WebAuthn L3 §5.1.4 as the client, then authenticatorGetAssertion.
struct AuthenticationCeremony {
    let environment: CeremonyEnvironment
    let controller: CeremonyController
    let caller: CallerOrigin
    let options: PublicKeyCredentialRequestOptions

    func run() throws(WebAuthnError) -> JSONValue {
        let log = environment.log, id = controller.id
        let rpID = try environment.rpIDValidator.effectiveRPID(requested: options.rpId, for: caller)
        let deadline = Date().addingTimeInterval(Double(Timeouts.effective(milliseconds: options.timeoutMilliseconds)) / 1000)
        let extensions = try AuthenticationExtensions(options.extensions, allowCredentials: options.allowCredentials)
        let clientData = ClientDataJSON.make(type: .get, challenge: options.challenge, caller: caller)
        log.info("get origin=\(caller.serialized) rp=\(rpID) allow=\(options.allowCredentials.count) uv=\(options.userVerification)", request: id)

        let device = try environment.deviceSelector.acquire(for: controller, replies: environment.replies, deadline: deadline)
        defer { device.close() }
        var allowList = options.allowCredentials.map(\.id)
        let preflight = CredentialListPreflight(device: device, controller: controller, rpID: rpID, clientData: clientData)
        // A long list goes in batches; PRF's per-credential salts need the credential known before the request.
        if preflight.needsBatches(allowList) || (extensions.needsCredentialPreflight && allowList.count > 1) {
            guard let held = preflight.heldCredential(in: allowList) else {
                try collectTouch(on: device, deadline: deadline)
                throw WebAuthnError(name: .notAllowed, message: "The security key has no credential for this site.")
            }
            allowList = [held]
        }
        let runner = environment.verifier(controller: controller, rpID: rpID, origin: caller.serialized)
        var method = try runner.plan(options.userVerification, device: device, makingCredential: false)
        if case .write? = extensions.largeBlob, method == .none, device.info.hasClientPIN { method = .pin }  // largeBlobWrite permission
        let request = AssertionRequest(
            clientDataJSON: clientData, rpID: rpID, allowList: allowList,
            extensions: extensions.ctapInputs(for: device.info, credentialID: allowList.count == 1 ? allowList[0] : nil))
        let (assertions, written) = try runner.run(on: device, method: method, deadline: deadline) { (pin, builtInUV) throws(FIDOError) in
            var r = request
            r.builtInUV = builtInUV
            let found: [Assertion]
            do throws(FIDOError) { found = try device.getAssertions(r, pin: pin) } catch {
                if error.code == FIDOError.noCredentials { return ([Assertion](), Bool?.none) }
                throw error
            }
            guard case .write(let blob)? = extensions.largeBlob else { return (found, nil) }
            guard let key = found.first?.largeBlobKey else { return (found, false) }
            do throws(FIDOError) {
                try device.setLargeBlob(blob, forKey: key, pin: pin)
                return (found, true)
            } catch {
                log.warn("largeBlob write failed: \(error)", request: id)
                return (found, false)
            }
        }
        if assertions.isEmpty {
            // Never tell the page "no credential" before the user touched the key (it would reveal
            // which credentials the key holds); a key may answer at once, so collect a touch first.
            try collectTouch(on: device, deadline: deadline)
            throw WebAuthnError(name: .notAllowed, message: "The security key has no credential for this site.")
        }
        let chosen = try choose(among: assertions, deadline: deadline)
        environment.replies.status(id, "processing")
        var blob: [UInt8]?
        if case .read? = extensions.largeBlob, let key = chosen.largeBlobKey { blob = try? device.largeBlob(forKey: key) }
        log.info("signed in with a \(chosen.credentialID.count)-byte credential id (\(assertions.count) matched)", request: id)
        return CredentialJSON.assertion(
            credentialID: chosen.credentialID, clientDataJSON: clientData, authenticatorData: chosen.authenticatorData,
            signature: chosen.signature, userHandle: chosen.userID,
            extensionResults: extensions.outputs(chosen, blob: blob, written: written))
    }

    private func collectTouch(on device: Device, deadline: Date) throws(WebAuthnError) {
        environment.replies.status(controller.id, "touch", detail: "Touch your security key.")
        let clockDeadline = ContinuousClock.now + .milliseconds(Int(max(0, deadline.timeIntervalSinceNow) * 1000))
        do {
            _ = try controller.using(device) { () throws(FIDOError) in
                try TouchSelection.waitForTouch(on: [device], deadline: clockDeadline, isCancelled: { controller.isCancelled })
            }
        } catch {
            throw ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: Date() >= deadline)
        }
    }

    /// Several discoverable credentials: the user picks the account, as in a browser's account chooser.
    private func choose(among assertions: [Assertion], deadline: Date) throws(WebAuthnError) -> Assertion {
        guard assertions.count > 1 else { return assertions[0] }
        let accounts: [JSONValue] = assertions.map { a in
            .object([("name", .string(a.userName ?? "")), ("displayName", .string(a.userDisplayName ?? "")),
                     ("id", a.userID.map(JSONValue.binary) ?? .null)])
        }
        controller.expectSelection()
        environment.replies.status(controller.id, "select-account", detail: "Choose an account.", extra: [("accounts", .array(accounts))])
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
