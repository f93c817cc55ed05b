import ArgumentParser
import BridgeHost
import Diagnostics
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `webauthn-bridge doctor`: checks the install and says how to fix what is wrong. Exit status 0 only when
/// nothing needed is missing.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the installation: host manifests, keys, PIN prompt, public suffix list, log.")

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let checks = Doctor().run()
        if json {
            let list: [JSONValue] = checks.map { check in
                .object([
                    ("check", .string(check.name)), ("status", .string(check.status.rawValue)),
                    ("detail", .string(check.detail)), ("fix", check.fix.map(JSONValue.string) ?? .null),
                ])
            }
            print(JSONValue.object([("ok", .bool(Doctor.passed(checks))), ("checks", .array(list))]).serializedString)
        } else {
            for check in checks {
                let status = check.status.rawValue
                print(
                    "\(status)\(String(repeating: " ", count: max(0, 4 - status.count)))  \(check.name): \(check.detail)"
                )
                if let fix = check.fix, check.status != .ok { print("      fix: \(fix)") }
            }
            print(
                Doctor.passed(checks)
                    ? "\nEverything needed is in place." : "\nSomething needed is missing: see FAIL above.")
        }
        if !Doctor.passed(checks) { throw ExitCode(1) }
    }
}
