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
    /// A key-management connection's fingerprint enrollment waits for the finger: `samplesLeft`, and after a touch
    /// `sample`, what the reader said of it (CTAP's lastEnrollSampleStatus name, `FP_GOOD`, `FP_TOO_FAST` …).
    case enrollFingerprint = "enroll-fingerprint"
}

/// The `type` of a frame to the host on a key-management connection: one the extension's Security keys page opens
/// with `manage` as its first frame (docs/protocol.md, "Key management"). A ceremony connection refuses them.
public enum KeyRequestType: String, CaseIterable, Sendable {
    /// The first frame of a key-management connection; later, or on another connection, it is refused.
    case manage
    /// One key's getInfo, PIN state and retries (no PIN asked).
    case keyInfo = "key-info"
    /// The passkeys on a key and its slots used and left (asks for the PIN).
    case passkeys
    /// Deletes one passkey (asks for the PIN, then a touch).
    case passkeyDelete = "passkey-delete"
    /// Changes a passkey's user name and display name (asks for the PIN).
    case passkeyRename = "passkey-rename"
    /// Sets the first PIN of a key without one (the new PIN asked twice).
    case pinSet = "pin-set"
    /// Changes the PIN (the current one, then the new one twice).
    case pinChange = "pin-change"
    /// Deletes everything on the key (a touch on the key; only soon after it was plugged in).
    case keyReset = "key-reset"
    /// authenticatorConfig: alwaysUv, the minimum PIN length, a forced PIN change (asks for the PIN).
    case keyConfig = "key-config"
    /// The fingerprints enrolled (asks for the PIN).
    case fingerprints
    /// Names one fingerprint (asks for the PIN).
    case fingerprintRename = "fingerprint-rename"
    /// Removes one fingerprint (asks for the PIN).
    case fingerprintDelete = "fingerprint-delete"
    /// Enrolls a finger: the PIN, then one touch of the sensor per sample (`enroll-fingerprint` statuses).
    case fingerprintAdd = "fingerprint-add"
}
