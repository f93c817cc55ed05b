/// Who launched the host, read from argv as browsers pass it: Chromium gives the calling extension's
/// origin (`chrome-extension://ID/`), Firefox the host manifest's path and the extension id.
public enum LaunchContext: Equatable, Sendable {
    case chromium(extensionID: String)
    case firefox(manifestPath: String, extensionID: String)
    /// `webauthn-bridge host`: started by hand or by a test, no browser involved.
    case direct

    /// Recognises a browser launch; nil when argv is a CLI command line instead.
    public static func browserLaunch(arguments: [String]) -> LaunchContext? {
        let args = Array(arguments.dropFirst())
        if let first = args.first, first.hasPrefix("chrome-extension://") {
            let id = first.dropFirst("chrome-extension://".count).split(separator: "/").first.map(String.init) ?? ""
            return .chromium(extensionID: id)
        }
        if args.count == 2, args[0].hasSuffix(".json"), args[0].hasPrefix("/") {
            return .firefox(manifestPath: args[0], extensionID: args[1])
        }
        return nil
    }

    public var extensionID: String? {
        switch self {
        case .chromium(let id): id
        case .firefox(_, let id): id
        case .direct: nil
        }
    }
}

/// The extensions this host serves: ours (both browsers' ids), any the user configured, and the Chromium ids the
/// installation ships beside the binary (`permits(_:installedChromiumIDs:)`).
public struct ExtensionAllowList: Sendable {
    /// Firefox id from extension/manifest.json `browser_specific_settings.gecko.id`.
    public static let firefoxID = "webauthn-bridge@webauthn-bridge"
    /// Chromium id derived from the public `key` in extension/manifest.json (extension/chromium-id.txt).
    public static let chromiumID = ChromiumExtensionID.value

    public let allowed: Set<String>

    public init(extra: [String] = []) {
        allowed = Set([Self.firefoxID, Self.chromiumID] + extra)
    }

    public func permits(_ context: LaunchContext) -> Bool {
        guard let id = context.extensionID else { return true }
        return allowed.contains(id)
    }

    /// `permits`, or a Chromium caller whose id the installation ships (`installed`, read only when asked:
    /// InstalledExtensionIDs), such as the CRX that install.sh --system has the browser install by policy.
    public func permits(_ context: LaunchContext, installedChromiumIDs installed: () -> [String]) -> Bool {
        if permits(context) { return true }
        guard case .chromium(let id) = context else { return false }
        return installed().contains(id)
    }
}
