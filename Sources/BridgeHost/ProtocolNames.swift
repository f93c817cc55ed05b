/// The names the native-messaging protocol carries (docs/protocol.md). extension/common/protocol-constants.js
/// holds them for both sides; ProtocolConstantsTests fails when these differ from it.

/// The protocol's version, sent as `protocol` in the `info` answer. It goes up only for a change an extension built
/// for the previous one could not follow; additions (a field, a status, a request type) leave it as it is
/// (docs/protocol.md, "Versions").
public enum ProtocolVersion {
    public static let current = 1
}

/// The `type` of a frame to the host.
public enum RequestType: String, CaseIterable, Sendable {
    case create
    case get
    case info
    case cancel
    case select
}

/// The `type` of a frame from the host.
public enum ReplyType: String, CaseIterable, Sendable {
    case status
    case result
    case error
}

/// The `status` of a status frame: a code only. The extension owns the sentence the user reads for each.
public enum CeremonyStatus: String, CaseIterable, Sendable {
    /// No key is plugged in; waiting for one.
    case insertKey = "insert-key"
    /// A key is plugged in but cannot be opened (`detail` names it and why).
    case keyUnusable = "key-unusable"
    /// Several keys: touch the one to use.
    case selectKey = "select-key"
    case touch
    /// Built-in user verification (fingerprint, on-key PIN).
    case uv
    /// The PIN dialog is up.
    case pin
    /// The PIN dialog is up to choose a first PIN: the site requires one and the key has none.
    case setPIN = "set-pin"
    /// Updates a notice already shown: the key is working.
    case processing
    /// The account chooser (with `accounts`); the user's choice comes back as `select`.
    case selectAccount = "select-account"
}
