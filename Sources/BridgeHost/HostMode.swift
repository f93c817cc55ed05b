import FIDO
import Foundation
import NativeMessaging
import Prompts
import SoftToken

/// What runs when a browser launches the host: configuration, the caller check, the log, the key
/// source (USB keys, or a SoftToken when configured), the PIN prompt, then the request loop.
public enum HostMode {
    public static func run(_ launch: LaunchContext, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a closed browser pipe must surface as a write error, not kill the host
        let configuration: HostConfiguration
        do { configuration = try HostConfiguration.load(environment: environment) } catch {
            FileHandle.standardError.write(Data("webauthn-bridge: configuration error: \(error)\n".utf8))
            return 2
        }
        let log = HostLog(path: configuration.logFile, level: configuration.logLevel)
        log.info("host \(HostInfo.version) started by \(describe(launch)) (libfido2 \(FIDOLibrary.version), pid \(getpid()))")
        guard ExtensionAllowList(extra: configuration.extraAllowedExtensions).permits(launch) else {
            log.error("refusing to serve extension \"\(launch.extensionID ?? "")\": this host was not installed for it")
            return 1
        }
        let devices: any DeviceProvider
        do { devices = try deviceProvider(configuration, log: log) } catch {
            log.error("cannot use SoftToken \(configuration.softTokenPath ?? ""): \(error)")
            return 1
        }
        let prompt = PromptSelector.select(environment: environment, configuredProgram: configuration.pinentryProgram)
        var libfido2Trace: FIDOLibrary.LogSink?
        if log.enabled(.trace) { libfido2Trace = { line in log.trace("libfido2: \(line)") } }
        let fidoThread = FIDOThread(logSink: libfido2Trace)
        let loop = RequestLoop(configuration: configuration, log: log, writer: FrameWriter(fileDescriptor: 1),
                               devices: devices, prompt: prompt, fidoThread: fidoThread)
        return loop.run(input: 0)
    }

    /// USB keys, or the configured SoftToken — never both, so a test can never reach a real key.
    static func deviceProvider(_ configuration: HostConfiguration, log: HostLog) throws -> any DeviceProvider {
        guard let path = configuration.softTokenPath else { return USBDeviceProvider() }
        let token = try SoftToken(stateFile: path)
        let devicePath = SoftTokenDevice.attach(token)
        log.warn("SoftToken \(path) selected by configuration: a software authenticator for development and tests only")
        return FixedDeviceProvider([DeviceLocation(
            path: devicePath, io: SoftTokenDevice.ioFunctions, manufacturer: "webauthn-bridge",
            product: "SoftToken (software token for development and tests)", isSoftware: true)])
    }

    static func describe(_ launch: LaunchContext) -> String {
        switch launch {
        case .chromium(let id): "Chromium-family browser for extension \(id)"
        case .firefox(let manifest, let id): "Firefox for extension \(id) (manifest \(manifest))"
        case .direct: "hand (host command)"
        }
    }
}
