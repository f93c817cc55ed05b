#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fault plan for a token that lives in another process: `FILE.faults` beside the state file `FILE`, JSON with
/// the members of `FaultPlan`, e.g. `{"command": 1, "response": "truncatedCBOR", "times": 1}` or
/// `{"clientPINErrors": {"9": 50}}` (map keys are command or subcommand bytes, values status bytes, in decimal).
///
/// This is how the integration tests inject faults into the SoftToken the real host opens through libfido2.
/// The token reads the file when a CBOR request begins and takes a changed one as a new plan (restarting the
/// counts); a removed file ends the plan it set. Only SoftTokens read it; a fault file never affects a real key.
/// An unreadable file is no plan at all, so a typo shows as a test whose fault did not happen.
enum FaultPlanFile {
    static func path(for stateFile: String) -> String { stateFile + ".faults" }

    /// The file's text, or nil when there is none.
    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func plan(from text: String) -> FaultPlan {
        guard let decoded = try? JSONDecoder().decode(Members.self, from: Data(text.utf8)) else { return .none }
        return FaultPlan(
            command: decoded.command, dropConnectionAfterReports: decoded.dropConnectionAfterReports,
            unplugAfterReports: decoded.unplugAfterReports,
            response: decoded.response.flatMap(ResponseFault.init(rawValue:)),
            injectedErrors: bytes(decoded.injectedErrors), clientPINErrors: bytes(decoded.clientPINErrors),
            times: decoded.times)
    }

    private struct Members: Decodable {
        var command: UInt8?
        var dropConnectionAfterReports: Int?
        var unplugAfterReports: Int?
        var response: String?
        var injectedErrors: [String: UInt8]?
        var clientPINErrors: [String: UInt8]?
        var times: Int?
    }

    private static func bytes(_ map: [String: UInt8]?) -> [UInt8: UInt8] {
        var result: [UInt8: UInt8] = [:]
        for (key, value) in map ?? [:] { if let byte = UInt8(key) { result[byte] = value } }
        return result
    }
}
