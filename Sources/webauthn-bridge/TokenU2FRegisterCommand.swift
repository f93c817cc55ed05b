import ArgumentParser
import FIDO
import SoftToken
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenCommand {
    /// `webauthn-bridge token u2f-register FILE --appid URL`: registers a credential on a SoftToken the way a site
    /// did through the old U2F JavaScript API (the application parameter is SHA-256 of the AppID URL), so the
    /// `appid` and `appidExclude` extensions can be tried end to end. Goes through libfido2 like every ceremony:
    /// on a U2F-only token that is libfido2's U2F_REGISTER. Development and tests only.
    struct U2FRegister: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "u2f-register",
            abstract: "Register a U2F-era credential under an AppID on a SoftToken (for trying appid/appidExclude).")

        @Argument(help: "Path of the SoftToken state file.")
        var file: String

        @Option(help: "The AppID URL the credential is registered under (https://…).")
        var appid: String

        func run() throws {
            guard appid.hasPrefix("https://") else { throw ValidationError("--appid must be an https URL") }
            FIDOLibrary.attachLogging(to: nil)
            let token = try SoftToken(stateFile: file)
            let path = SoftTokenDevice.attach(token)
            defer { SoftTokenDevice.detach(path: path) }
            let device = try Device.open(
                DeviceLocation(
                    path: path, io: SoftTokenDevice.ioFunctions, manufacturer: "webauthn-bridge", product: "SoftToken",
                    isSoftware: true))
            defer { device.close() }
            guard token.configuration.u2f else {
                throw ValidationError("\(file) does not speak U2F (create it with a profile that does)")
            }
            device.forceU2F()
            device.setTimeout(milliseconds: 30_000)
            // What the U2F JavaScript API signed (FIDO U2F JavaScript API 1.1, "ClientData").
            let clientData = Array(
                #"{"typ":"navigator.id.finishEnrollment","challenge":"u2f-register","origin":"\#(origin)"}"#.utf8)
            let made = try device.makeCredential(
                CredentialRequest(
                    clientDataJSON: clientData, rpID: appid, rpName: appid, userID: [0], userName: "",
                    userDisplayName: "",
                    algorithm: -7, residentKey: false), pin: nil)
            let output = JSONValue.object([
                ("appid", .string(appid)),
                ("format", .string(made.format)),
                ("credentialId", .string(Base64URL.encode(made.credentialID))),
                ("authenticatorData", .string(Base64URL.encode(made.authenticatorData))),
                ("attestationStatement", .string(Base64URL.encode(made.attestationStatement))),
                ("clientDataJSON", .string(Base64URL.encode(clientData))),
            ])
            print(output.serializedString)
        }

        /// The facet that registered: the AppID's own origin.
        private var origin: String {
            guard let url = URL(string: appid), let scheme = url.scheme, let host = url.host else { return appid }
            return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        }
    }
}
