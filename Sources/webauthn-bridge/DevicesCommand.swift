import ArgumentParser
import BridgeHost
import Diagnostics
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge devices`: every key libfido2 sees (or the configured SoftToken), with its getInfo.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the security keys libfido2 sees, with their capabilities and PIN state."
    )

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let configuration = try HostConfiguration.load()
        let log = HostLog(path: configuration.logFile, level: configuration.logLevel)
        let reports = DeviceReport.all(configuration: configuration, log: log, softTokens: SoftTokenDeviceProvider.make)
        if json {
            print(JSONValue.array(reports.map(\.json)).serializedString)
        } else if reports.isEmpty {
            print("No security key found. Plug one in; if it is plugged in, run `webauthn-bridge doctor`.")
        } else {
            print(reports.map(\.text).joined(separator: "\n\n"))
        }
    }
}
