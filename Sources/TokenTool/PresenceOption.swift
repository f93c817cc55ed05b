import SoftToken

/// The text form of how a SoftToken's simulated user answers touch requests (`token create --presence`, `token show`):
/// `auto`, `deny`, `delay:MILLISECONDS` or `signal` (a touch each time `FILE.touch` is made).
public enum PresenceOption {
    public static func parse(_ text: String) -> PresenceMode? {
        switch text {
        case "auto", "automatic": return .automatic
        case "deny": return .deny
        case "signal": return .onSignal
        default:
            guard text.hasPrefix("delay:"), let ms = Int(text.dropFirst("delay:".count)), ms >= 0 else { return nil }
            return .delay(milliseconds: ms)
        }
    }

    public static func text(_ mode: PresenceMode) -> String {
        switch mode {
        case .automatic: "auto"
        case .deny: "deny"
        case .delay(let ms): "delay:\(ms)"
        case .onSignal: "signal"
        }
    }
}
