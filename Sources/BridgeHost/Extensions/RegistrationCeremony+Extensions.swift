import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RegistrationCeremony {
    /// appidExclude: a U2F credential in excludeCredentials, registered under the AppID, also excludes the key.
    /// Like any excluded credential it is reported only after the user touched the key.
    func refuseAppIDExcluded(_ appid: String, clientData: [UInt8], on device: Device, deadline: Deadline)
        throws(WebAuthnError)
    {
        let excluded = options.excludeCredentials.map(\.id)
        guard
            try AppIDExtension.keyHolds(
                excluded, rpID: appid, clientData: clientData, on: device,
                controller: controller, deadline: deadline)
        else { return }
        try controller.collectTouch(on: device, replies: environment.replies, deadline: deadline)
        throw WebAuthnError(
            name: .invalidState,
            message: "The security key already holds a credential for this site (registered under its AppID)."
        ).retryable()
    }
}
