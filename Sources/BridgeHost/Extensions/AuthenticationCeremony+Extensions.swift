import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The steps of a sign-in that exist only for extensions: choosing the credential before a salt is sent,
/// the AppID fallback, and reading a large blob.
extension AuthenticationCeremony {
    /// The allow list to send: narrowed to the one credential the key holds when an extension's input
    /// depends on the credential (prf.evalByCredential), found with a silent up=false assertion.
    func extensionCredentialChoice(
        _ extensions: AuthenticationExtensions, _ request: AssertionRequest, on device: Device,
        deadline: Deadline
    ) throws(WebAuthnError) -> [[UInt8]] {
        guard extensions.needsCredentialChoice(allowList: request.allowList) else { return request.allowList }
        var probe = request
        probe.userPresence = false
        probe.extensions = AssertionExtensions()
        device.setTimeout(until: deadline)
        do {
            let found = try controller.using(device) { () throws(FIDOError) in try device.getAssertions(probe, pin: nil)
            }
            if let id = found.first?.credentialID, !id.isEmpty { return [id] }
        } catch {
            // A key that refuses silent assertions (alwaysUv, say) still gets the request, with `eval` as input.
            if controller.isCancelled || deadline.isPast {
                throw ErrorMapping.webAuthnError(
                    for: error, cancelled: controller.isCancelled, timedOut: deadline.isPast)
            }
            if error.code != FIDOError.noCredentials {
                environment.log.info("silent credential probe failed: \(error)", request: controller.id)
            }
        }
        return request.allowList
    }

    /// appid: sign in under the AppID when the key holds an allowed credential for it and none for the rp.id.
    func useAppID(_ appid: String?, _ request: AssertionRequest, on device: Device, deadline: Deadline)
        throws(WebAuthnError) -> Bool
    {
        guard let appid, !request.allowList.isEmpty else { return false }
        let hold = { (rp: String) throws(WebAuthnError) -> Bool in
            try AppIDExtension.keyHolds(
                request.allowList, rpID: rp, clientData: request.clientDataJSON, on: device,
                controller: controller, deadline: deadline)
        }
        if try hold(request.rpID) { return false }
        return try hold(appid)
    }

    func readLargeBlob(
        _ inputs: AuthenticationExtensionInputs, _ chosen: Assertion, on device: Device,
        deadline: Deadline
    ) throws(WebAuthnError) -> JSONValue? {
        guard case .read? = inputs.largeBlob else { return nil }
        device.setTimeout(until: deadline)
        do {
            return try controller.using(device) { () throws(FIDOError) in
                try LargeBlobExtension.perform(
                    .read, key: chosen.largeBlobKey, on: device, pin: nil,
                    log: environment.log, request: controller.id)
            }
        } catch {
            throw ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: deadline.isPast)
        }
    }
}
