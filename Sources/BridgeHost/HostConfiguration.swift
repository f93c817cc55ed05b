import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings from `$XDG_CONFIG_HOME/webauthn-bridge/config.json`, overridden by `WEBAUTHN_BRIDGE_*`
/// environment variables (the names README.md's Configuration table lists, used the same way by tests and docs).
public struct HostConfiguration: Sendable, Equatable {
    public var logLevel: LogLevel = .info
    public var logFile: String
    public var pinentryProgram: String?
    /// A SoftToken state file: use that software authenticator instead of USB keys.
    public var softTokenPath: String?
    public var maxInboundFrameBytes = 4 * 1024 * 1024
    /// Extension ids allowed to launch this host, besides the built-in ones.
    public var extraAllowedExtensions: [String] = []

    public init(logFile: String) { self.logFile = logFile }

    /// Reads the config file (when present) and then the environment.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError) -> HostConfiguration
    {
        let home = homeDirectory(environment)
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        var config = HostConfiguration(logFile: defaultLogFile(environment))
        let configPath = configHome + "/webauthn-bridge/config.json"
        if let data = FileManager.default.contents(atPath: configPath) {
            try config.apply(fileContents: data, path: configPath)
        }
        try config.apply(environment: environment)
        return config
    }

    /// `$XDG_STATE_HOME/webauthn-bridge/host.log` (`~/.local/state/…`).
    static func defaultLogFile(_ environment: [String: String]) -> String {
        let stateHome =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeDirectory(environment)
            + "/.local/state"
        return stateHome + "/webauthn-bridge/host.log"
    }

    /// Where to say that the configuration cannot be read: the log file the environment names, else the default.
    public static func logFileDespiteErrors(_ environment: [String: String]) -> String {
        environment["WEBAUTHN_BRIDGE_LOG_FILE"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultLogFile(environment)
    }

    mutating func apply(fileContents data: Data, path: String) throws(ConfigurationError) {
        guard let object = (try? JSONValue.parse(Array(data)))?.objectValue else {
            throw ConfigurationError("\(path) is not a JSON object")
        }
        for (key, value) in object {
            switch (key, value) {
            case ("logLevel", .string(let v)):
                guard let level = LogLevel(rawValue: v) else {
                    throw ConfigurationError("\(path): unknown logLevel \"\(v)\"")
                }
                logLevel = level
            case ("logFile", .string(let v)): logFile = v
            case ("pinentry", .string(let v)): pinentryProgram = v
            case ("softToken", .string(let v)): softTokenPath = v
            case ("maxInboundFrameBytes", _) where (value.intValue ?? 0) > 0: maxInboundFrameBytes = value.intValue ?? 0
            case ("allowedExtensions", .array(let items)) where items.allSatisfy({ $0.stringValue != nil }):
                extraAllowedExtensions = items.compactMap(\.stringValue)
            default: throw ConfigurationError("\(path): unknown or mistyped setting \"\(key)\"")
            }
        }
    }

    mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        if let v = environment["WEBAUTHN_BRIDGE_LOG_LEVEL"], !v.isEmpty {
            guard let level = LogLevel(rawValue: v.lowercased()) else {
                throw ConfigurationError(
                    "WEBAUTHN_BRIDGE_LOG_LEVEL must be error, warn, info, debug or trace (got \"\(v)\")")
            }
            logLevel = level
        }
        if let v = environment["WEBAUTHN_BRIDGE_LOG_FILE"], !v.isEmpty { logFile = v }
        if let v = environment["WEBAUTHN_BRIDGE_PINENTRY"], !v.isEmpty { pinentryProgram = v }
        if let v = environment["WEBAUTHN_BRIDGE_SOFT_TOKEN"], !v.isEmpty { softTokenPath = v }
        if let v = environment["WEBAUTHN_BRIDGE_MAX_FRAME_BYTES"], !v.isEmpty {
            guard let n = Int(v), n > 0 else {
                throw ConfigurationError("WEBAUTHN_BRIDGE_MAX_FRAME_BYTES must be a positive integer")
            }
            maxInboundFrameBytes = n
        }
    }
}

public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ message: String) { description = message }
}
