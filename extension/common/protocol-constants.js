/*
 * protocol-constants.js — the names and numbers the extension and the host share (docs/protocol.md), listed once.
 * common/protocol.js exports them to the extension; the host keeps typed copies, which its ProtocolConstantsTests
 * hold to this file.
 *
 * Data only, in a module rather than a .json file: Chromium 156 starts a service worker that imports a JSON module
 * once, and then never again after a browser restart ("Failed to load the script unexpectedly" for the .json,
 * docs/extension.md, "Modules"). The object is strict JSON, so the host's tests and the Python tests read it as
 * JSON: the text after `export default`, without the final semicolon (syntax.test.mjs checks it parses).
 */
export default {
  "protocolVersion": 1,
  "requestTypes": ["create", "get", "info", "cancel", "select"],
  "keyRequestTypes": [
    "manage", "key-info", "passkeys", "passkey-delete", "passkey-rename", "pin-set", "pin-change", "key-reset",
    "key-config", "fingerprints", "fingerprint-rename", "fingerprint-delete", "fingerprint-add"
  ],
  "replyTypes": ["status", "result", "error"],
  "statuses": [
    "insert-key", "key-unusable", "select-key", "touch", "uv", "pin", "set-pin", "processing", "select-account",
    "enroll-fingerprint"
  ],
  "statusFields": ["detail", "accounts", "attemptsLeft", "samplesLeft", "sample"],
  "errorNames": [
    "NotAllowedError", "InvalidStateError", "SecurityError", "NotSupportedError", "AbortError", "ConstraintError",
    "SyntaxError", "UnknownError", "EncodingError", "TypeError", "RangeError"
  ],
  "errorDetails": {
    "keyStoreFull": "The security key has no room for another passkey: remove one you no longer use."
  },
  "binaryMarker": "__binary__",
  "limits": {
    "outboundFrameBytes": 1048576,
    "defaultInboundFrameBytes": 4194304,
    "replyAllowanceBytes": 65536,
    "requestIdBytes": 4096,
    "credentialListEntries": 64
  },
  "timeouts": {
    "defaultMilliseconds": 300000,
    "minimumMilliseconds": 30000,
    "maximumMilliseconds": 600000
  }
};
