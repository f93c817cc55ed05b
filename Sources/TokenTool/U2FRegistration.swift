import FIDO
import SoftToken
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Registers a credential on a SoftToken the way a site did through the old U2F JavaScript API (the application
/// parameter is SHA-256 of the AppID URL), so the `appid` and `appidExclude` extensions can be tried end to end.
/// Goes through libfido2 like every ceremony: on a U2F-only token that is libfido2's U2F_REGISTER. Development and
/// tests only.
public enum U2FRegistration {
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The registration as the U2F API returned it, its byte strings base64url.
    public static func register(tokenFile: String, appid: String) throws -> JSONValue {
        guard appid.hasPrefix("https://") else { throw Refusal(description: "--appid must be an https URL") }
        FIDOLibrary.attachLogging(to: nil)
        let token = try SoftToken(stateFile: tokenFile)
        guard token.configuration.u2f else {
            throw Refusal(description: "\(tokenFile) does not speak U2F (create it with a profile that does)")
        }
        let path = SoftTokenDevice.attach(token)
        defer { SoftTokenDevice.detach(path: path) }
        let device = try Device.open(
            DeviceLocation(
                path: path, io: SoftTokenDevice.ioFunctions, manufacturer: "webauthn-bridge", product: "SoftToken",
                isSoftware: true))
        defer { device.close() }
        device.forceU2F()
        device.setTimeout(milliseconds: 30_000)
        // What the U2F JavaScript API signed (FIDO U2F JavaScript API 1.1, "ClientData").
        let clientData = Array(
            #"{"typ":"navigator.id.finishEnrollment","challenge":"u2f-register","origin":"\#(origin(of: appid))"}"#
                .utf8)
        let made = try device.makeCredential(
            CredentialRequest(
                clientDataJSON: clientData, rpID: appid, rpName: appid, userID: [0], userName: "",
                userDisplayName: "", algorithm: -7, residentKey: false), pin: nil)
        return .object([
            ("appid", .string(appid)),
            ("format", .string(made.format)),
            ("credentialId", .string(Base64URL.encode(made.credentialID))),
            ("authenticatorData", .string(Base64URL.encode(made.authenticatorData))),
            ("attestationStatement", .string(Base64URL.encode(made.attestationStatement))),
            ("clientDataJSON", .string(Base64URL.encode(clientData))),
        ])
    }

    /// The facet that registered: the AppID's own origin.
    static func origin(of appid: String) -> String {
        guard let url = URL(string: appid), let scheme = url.scheme, let host = url.host else { return appid }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}
