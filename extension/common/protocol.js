/*
 * protocol.js — the names and numbers of the native-messaging protocol the extension shares with the host
 * (docs/protocol.md). docs/protocol-constants.json is their one list; extension/tests/protocol-constants.test.mjs
 * fails when this file says otherwise, as the host's ProtocolConstantsTests do for the Swift side.
 *
 * Also the checks every message the extension reads goes through: isPlainObject, and isRequestId, the one rule
 * for a request id (the host's: LIMITS.requestIdBytes), whether the background's id at the host or a page's own.
 *
 * Loaded wherever the extension reads messages, never in the page's own world: the background (first in
 * background.scripts / importScripts) and the relay's isolated content script (before frame-rules.js and
 * relay.js). Exposes `WebAuthnBridgeProtocol` on that global, or
 * module.exports under node. The page's MAIN world cannot share it: Chromium injects a file listed in two
 * content-script entries only into the first (docs/extension.md), so page/codec.js keeps that world's own
 * isPlainObject, and the page matches a reply only against the ids it made itself.
 */
(function (root) {
  'use strict';

  /** The protocol's version: the host's `info` answer carries it as `protocol` (docs/protocol.md, "Versions"). */
  const VERSION = 1;

  /** `type` of a frame to the host. */
  const REQUEST = Object.freeze({ create: 'create', get: 'get', info: 'info', cancel: 'cancel', select: 'select' });

  /** `type` of a frame from the host. */
  const REPLY = Object.freeze({ status: 'status', result: 'result', error: 'error' });

  /** `status` of a status frame: codes only; the sentences the user reads are prompt/prompt.js's. */
  const STATUS = Object.freeze({
    insertKey: 'insert-key',
    keyUnusable: 'key-unusable',
    selectKey: 'select-key',
    touch: 'touch',
    uv: 'uv',
    pin: 'pin',
    setPin: 'set-pin',
    processing: 'processing',
    selectAccount: 'select-account',
  });

  /** The members a status frame may carry besides id, type and status: `detail` (the host's words, for
   *  `key-unusable`), `accounts` (`select-account`), `attemptsLeft` (`pin` after a wrong PIN, a number). */
  const STATUS_FIELDS = Object.freeze({ detail: 'detail', accounts: 'accounts', attemptsLeft: 'attemptsLeft' });

  /** `error.name` of an error frame: the DOMException names (and TypeError) the host answers with. */
  const ERROR = Object.freeze({
    notAllowed: 'NotAllowedError',
    invalidState: 'InvalidStateError',
    security: 'SecurityError',
    notSupported: 'NotSupportedError',
    abort: 'AbortError',
    constraint: 'ConstraintError',
    syntax: 'SyntaxError',
    unknown: 'UnknownError',
    encoding: 'EncodingError',
    typeError: 'TypeError',
    range: 'RangeError',
  });

  /** The member name of a binary value: {"__binary__": "<base64url>"}. */
  const BINARY_MARKER = '__binary__';

  const LIMITS = Object.freeze({
    outboundFrameBytes: 1048576,       // host → browser, refused above by both browsers
    defaultInboundFrameBytes: 4194304, // browser → host, the host's default
    requestIdBytes: 4096,              // longest id the host echoes
    credentialListEntries: 64,         // allowCredentials / excludeCredentials, as Chromium caps them
  });

  /** publicKey.timeout: absent → the default, otherwise clamped to the bounds. One policy for both sides. */
  const TIMEOUTS = Object.freeze({
    defaultMilliseconds: 300000,
    minimumMilliseconds: 30000,
    maximumMilliseconds: 600000,
  });

  /** The timeout a request runs under (ms): the host's rule, so a request waiting here expires as it would there. */
  function effectiveTimeout(options) {
    const t = options && Number.isFinite(options.timeout) ? options.timeout : TIMEOUTS.defaultMilliseconds;
    return Math.min(TIMEOUTS.maximumMilliseconds, Math.max(TIMEOUTS.minimumMilliseconds, t));
  }

  /** Whether a frame, or a member of one, is a JSON object (not null, not an array). */
  function isPlainObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  const utf8 = new TextEncoder();

  /** Whether `value` may be a request id: a non-empty string of at most LIMITS.requestIdBytes UTF-8 bytes, the
   *  longest the host echoes. One rule for the ids the extension sends the host and those a page sends it. */
  function isRequestId(value) {
    if (typeof value !== 'string' || value.length === 0) return false;
    // A UTF-16 code unit is at most 3 UTF-8 bytes: only a long string needs encoding.
    return value.length * 3 <= LIMITS.requestIdBytes || utf8.encode(value).length <= LIMITS.requestIdBytes;
  }

  const api = Object.freeze({
    VERSION, REQUEST, REPLY, STATUS, STATUS_FIELDS, ERROR, BINARY_MARKER, LIMITS, TIMEOUTS, effectiveTimeout, isPlainObject,
    isRequestId,
  });
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root.WebAuthnBridgeProtocol = api;
})(globalThis);
