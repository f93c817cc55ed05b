import FIDO
import Glibc
import NativeMessaging
import Prompts

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes the key source for the SoftToken state files a configuration names. The executable supplies it: the host
/// reaches keys only through the `DeviceProvider` seam and does not link SoftToken.
public typealias SoftTokenProviding = @Sendable (_ paths: [String], _ log: HostLog) -> any DeviceProvider

/// What runs when a browser launches the host: configuration, the caller check, the log, the key
/// source (USB keys, or SoftTokens when configured), the PIN prompt, then the request loop.
public enum HostMode {
    public static func run(
        _ launch: LaunchContext, softTokens: SoftTokenProviding,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a closed browser pipe must surface as a write error, not kill the host
        let configuration: HostConfiguration
        do { configuration = try HostConfiguration.load(environment: environment) } catch {
            writeToStandardError("webauthn-bridge: configuration error: \(error)\n")
            // The browser shows the user nothing of stderr; the log is where `webauthn-bridge log` finds why.
            HostLog(path: HostConfiguration.logFileDespiteErrors(environment), level: .error)
                .error("configuration error: \(error); the host serves nothing until it is fixed")
            return 2
        }
        let log = HostLog(path: configuration.logFile, level: configuration.logLevel)
        log.info(
            "host \(HostInfo.version) started by \(describe(launch)) (libfido2 \(FIDOLibrary.version), pid \(getpid()))"
        )
        guard
            ExtensionAllowList(extra: configuration.extraAllowedExtensions)
                .permits(launch, installedChromiumIDs: { InstalledExtensionIDs.ofRunningHost(log: log) })
        else {
            log.error("refusing to serve extension \"\(launch.extensionID ?? "")\": this host was not installed for it")
            return 1
        }
        let devices = deviceProvider(configuration, log: log, softTokens: softTokens)
        let prompt = PromptSelector.select(environment: environment, configuredProgram: configuration.pinentryProgram)
        var libfido2Trace: FIDOLibrary.LogSink?
        if log.enabled(.trace) {
            let trace = CTAPTrace()  // raw frame dumps never reach the log; decoded, redacted payloads do
            libfido2Trace = { line in for shown in trace.lines(for: line) { log.trace("libfido2: \(shown)") } }
        }
        let fidoThread = FIDOThread(logSink: libfido2Trace)
        let loop = RequestLoop(
            configuration: configuration, log: log, writer: FrameWriter(fileDescriptor: 1),
            devices: devices, prompt: prompt, fidoThread: fidoThread)
        return loop.run(input: 0)
    }

    /// USB keys, or the configured SoftTokens — never both, so a test can never reach a real key.
    public static func deviceProvider(
        _ configuration: HostConfiguration, log: HostLog,
        softTokens: SoftTokenProviding
    ) -> any DeviceProvider {
        guard let setting = configuration.softTokenPath else { return USBDeviceProvider() }
        let paths = setting.split(separator: ":").map(String.init)
        log.warn(
            "SoftToken selected by configuration (\(paths.joined(separator: ", "))): a software authenticator for development and tests only"
        )
        return softTokens(paths, log)
    }

    static func describe(_ launch: LaunchContext) -> String {
        switch launch {
        case .chromium(let id): "Chromium-family browser for extension \(id)"
        case .firefox(let manifest, let id): "Firefox for extension \(id) (manifest \(manifest))"
        case .direct: "hand (host command)"
        }
    }
}
