import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `appid` and `appidExclude` (WebAuthn L3 §10.1.1, §10.1.2): credentials registered through the old U2F API
/// are bound to SHA-256(AppID URL) instead of SHA-256(rp.id). libfido2 hashes whatever string it is given as the
/// RP id, so the AppID string itself is passed as the rp id of an assertion.
///
/// Deliberately simplified: the FIDO AppID & Facet rules are reduced to "an https URL whose host is the rp.id,
/// a parent domain of the origin's host the rp.id rules accept, or a subdomain of the rp.id"; TrustedFacets lists
/// are never fetched.
enum AppIDExtension {
    static func validate(
        _ requested: String, rpID: String, caller: CallerOrigin,
        validator: RelyingPartyIDValidator
    ) throws(WebAuthnError) -> String {
        // An empty AppID is the caller's FacetID, its origin (FIDO AppID and Facet §3.1.2 step 2), as both browsers.
        let appid = requested.isEmpty ? caller.serialized : requested
        guard let url = URL(string: appid), url.scheme?.lowercased() == "https", let host = url.host?.lowercased(),
            !host.isEmpty
        else {
            throw .security("The appid \"\(appid)\" is not an https URL.")
        }
        if host == rpID || host.hasSuffix("." + rpID) { return appid }
        if (try? validator.effectiveRPID(requested: host, for: caller)) != nil { return appid }
        throw .security("The appid \"\(appid)\" is not same-site with the origin \(caller.serialized).")
    }

    /// Whether the key holds one of `credentials` for `rpID` (a domain or an AppID string), asked silently
    /// (up=false, no PIN), which reveals nothing to the page by itself.
    static func keyHolds(
        _ credentials: [[UInt8]], rpID: String, clientData: [UInt8], on device: Device,
        controller: CeremonyController, deadline: Deadline
    ) throws(WebAuthnError) -> Bool {
        guard !credentials.isEmpty else { return false }
        let probe = AssertionRequest(
            clientDataJSON: clientData, rpID: rpID, allowList: credentials, userPresence: false)
        device.setTimeout(until: deadline)
        do {
            let found = try controller.using(device) { () throws(FIDOError) in try device.getAssertions(probe, pin: nil)
            }
            return !found.isEmpty
        } catch {
            // libfido2 speaks U2F to a U2F-only key and reports a known key handle this way (check-only, no touch).
            if error.code == FIDOError.userPresenceRequired { return true }
            // Only a cancel or the deadline ends the ceremony; a key that refuses silent assertions (alwaysUv)
            // is treated as not holding the credential, so the ceremony goes on under the rp.id.
            if controller.isCancelled || deadline.isPast {
                throw ErrorMapping.webAuthnError(
                    for: error, cancelled: controller.isCancelled, timedOut: deadline.isPast)
            }
            return false
        }
    }
}
