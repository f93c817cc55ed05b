import CBOR
import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// navigator.credentials.create(): WebAuthn L3 §5.1.3 as the client, then authenticatorMakeCredential.
struct RegistrationCeremony {
    let environment: CeremonyEnvironment
    let controller: CeremonyController
    let caller: CallerOrigin
    let options: PublicKeyCredentialCreationOptions

    /// COSE algorithms libfido2 1.12 can ask a key for.
    static let hostAlgorithms: Set<Int> = [-7, -8, -35, -257]

    func run() throws(WebAuthnError) -> JSONValue {
        let log = environment.log
        let id = controller.id
        // Chromium's order (docs/errors.md): what Blink refuses (the extension inputs, then the options' own
        // refusals), then what its browser process checks (origin, rp.id, AppID), then the host's own limits.
        let extensionInputs = try RegistrationExtensionInputs(options.extensions)
        try options.checkBeforeRelyingParty()
        let rpID = try environment.rpIDValidator.effectiveRPID(requested: options.rp.id, for: caller)
        let appidExclude = try extensionInputs.appidExclude.map { (a) throws(WebAuthnError) in
            try AppIDExtension.validate(a, rpID: rpID, caller: caller, validator: environment.rpIDValidator)
        }
        let algorithms = try AlgorithmSelection.choose(
            requested: options.pubKeyCredParams, supported: Self.hostAlgorithms)
        if options.authenticatorAttachment == "platform" {
            // A security key is a roaming authenticator; Firefox 153 refuses so at once, Chromium 156 when its
            // timeout ends (no platform authenticator appears).
            throw .notAllowed("The site asks for a platform authenticator; a security key is a roaming one.")
        }
        // The first attempt's deadline, kept when the ceremony starts over on another key (KeyWatch).
        let deadline = environment.deviceSelector.deadline(
            for: controller, .after(.milliseconds(Timeouts.effective(milliseconds: options.timeoutMilliseconds))))
        let clientData = ClientDataJSON.make(type: .create, challenge: options.challenge, caller: caller)
        try ReplyChannel.refuseUnanswerable(clientData: clientData)
        log.info(
            "create origin=\(caller.serialized) rp=\(rpID) algorithms=\(algorithms) residentKey=\(options.residentKey) uv=\(options.userVerification) attestation=\(options.attestation) exclude=\(options.excludeCredentials.count)",
            request: id)

        let prepared = Prepared(
            rpID: rpID, algorithms: algorithms, deadline: deadline, clientData: clientData,
            extensionInputs: extensionInputs, appidExclude: appidExclude)
        return try environment.onEveryKey(of: controller, deadline: deadline) {
            [self] (device, environment, lane) throws(WebAuthnError) in
            try RegistrationCeremony(environment: environment, controller: lane, caller: caller, options: options)
                .attempt(on: device, prepared)
        }
    }

    /// What the request asks, decided before any key is touched.
    struct Prepared: Sendable {
        let rpID: String
        let algorithms: [Int]
        let deadline: Deadline
        let clientData: [UInt8]
        let extensionInputs: RegistrationExtensionInputs
        let appidExclude: String?
    }

    /// The ceremony on one key (one of several, when they race).
    private func attempt(on device: Device, _ prepared: Prepared) throws(WebAuthnError) -> JSONValue {
        let id = controller.id
        let (rpID, algorithms, deadline) = (prepared.rpID, prepared.algorithms, prepared.deadline)
        let (clientData, extensionInputs, appidExclude) =
            (prepared.clientData, prepared.extensionInputs, prepared.appidExclude)
        guard let algorithm = algorithms.first(where: device.info.supportedAlgorithms.contains) else {
            // As Chromium (kNoCommonAlgorithms is found after a touch): nothing is said before the user acts.
            try controller.collectTouch(on: device, replies: environment.replies, deadline: deadline)
            throw ErrorMapping.noCommonAlgorithm(algorithms)
        }
        let residentKey = try residentKeyDecision(device, deadline: deadline)
        let extensions: RegistrationExtensions
        do {
            extensions = try RegistrationExtensions(extensionInputs, info: device.info, residentKey: residentKey)
        } catch {
            // As Chromium (kAuthenticatorMissingLargeBlob, kAuthenticatorMissingResidentKeys for an enforced
            // credProtect: NotAllowedError after a touch), so a page learns nothing of the key before the user acts.
            environment.log.info("the key cannot do what the site requires: \(error.message)", request: id)
            try controller.collectTouch(on: device, replies: environment.replies, deadline: deadline)
            throw error.retryable()
        }
        if let appidExclude {
            try refuseAppIDExcluded(appidExclude, clientData: clientData, on: device, deadline: deadline)
        }
        var excludeList = options.excludeCredentials.map(\.id)
        let preflight = CredentialListPreflight(
            device: device, controller: controller, rpID: rpID, clientData: clientData)
        if let batches = preflight.batchesIfNeeded(excludeList) {
            // Only a credential the key holds matters; naming just it keeps the request within the key's limits.
            // (A U2F key that holds one without naming it is asked the whole list: libfido2 checks each id alone.)
            if case .held(let id) = preflight.finding(in: batches) {
                excludeList = id.map { [$0] } ?? excludeList
            } else {
                excludeList = []
            }
        }
        var request = CredentialRequest(
            clientDataJSON: clientData, rpID: rpID, rpName: EntityName.forAuthenticator(options.rp.name),
            userID: options.user.id, userName: EntityName.forAuthenticator(options.user.name),
            userDisplayName: EntityName.forAuthenticator(options.user.displayName), algorithm: algorithm,
            residentKey: residentKey, excludeList: excludeList)
        request.extensions = extensions.ctap

        let runner = environment.verifier(controller: controller, rpID: rpID, origin: caller.serialized)
        let method = try runner.plan(
            options.userVerification, device: device, ceremony: .makeCredential(discoverable: residentKey),
            deadline: deadline)
        let made = try runner.run(on: device, method: method, deadline: deadline) {
            (pin, builtInUV) throws(FIDOError) in
            var r = request
            r.builtInUV = builtInUV
            return try device.makeCredential(r, pin: pin)
        }
        guard controller.claim() else { throw ErrorMapping.lostRace }
        environment.replies.updateNotice(id, .processing)
        return try answer(made, clientData: clientData, residentKey: residentKey, extensions: extensions)
    }

    /// residentKey "required" needs a key that stores credentials; "preferred" uses it when available. A key
    /// that cannot is refused as Chromium does (and as WebAuthn L3 §5.1.3 ends when no key qualifies): with
    /// NotAllowedError once the user touched it, so a page learns nothing of the key without the user acting.
    private func residentKeyDecision(_ device: Device, deadline: Deadline) throws(WebAuthnError) -> Bool {
        switch options.residentKey {
        case .required:
            guard device.info.supportsResidentKeys else {
                environment.log.info(
                    "the key cannot store discoverable credentials, which the site requires", request: controller.id)
                try controller.collectTouch(on: device, replies: environment.replies, deadline: deadline)
                throw WebAuthnError(
                    name: .notAllowed,
                    message:
                        "This security key cannot store passkeys (discoverable credentials), which this site requires."
                ).retryable()
            }
            return true
        case .preferred: return device.info.supportsResidentKeys
        case .discouraged: return false
        }
    }

    private func answer(
        _ made: MadeCredential, clientData: [UInt8], residentKey: Bool,
        extensions: RegistrationExtensions
    ) throws(WebAuthnError) -> JSONValue {
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(bytes: made.authenticatorData) } catch {
            environment.log.error(
                "the key returned unparseable authenticator data: \(error.message)", request: controller.id)
            throw WebAuthnError(name: .notAllowed, message: "The security key returned malformed data.")
        }
        let (format, statement) = conveyedAttestation(made)
        let attestationObject = AttestationObject.encode(
            format: format, statement: statement, authenticatorData: made.authenticatorData)
        environment.log.info(
            "created credential (\(made.credentialID.count)-byte id, alg \(made.algorithm), fmt \(format))",
            request: controller.id)
        return CredentialJSON.registration(
            credentialID: made.credentialID, clientDataJSON: clientData, attestationObject: attestationObject,
            authenticatorData: authData, transports: ["usb"],
            extensionResults: extensions.outputs(made, authData: authData, residentKey: residentKey))
    }

    /// attestation "none" replaces the statement with an empty one (§5.1.3 step 23); indirect, direct and
    /// enterprise convey the key's own statement unchanged.
    private func conveyedAttestation(_ made: MadeCredential) -> (String, CBOR) {
        if options.attestation == .none { return ("none", .map([])) }
        return (made.format, .raw(made.attestationStatement))
    }
}
