/*
 * protocol.js — the names and numbers of the native-messaging protocol the extension shares with the host
 * (docs/protocol.md). docs/protocol-constants.json is their one list; extension/tests/protocol-constants.test.mjs
 * fails when this file says otherwise, as the host's ProtocolConstantsTests do for the Swift side.
 *
 * Also re-exports the checks every message the extension reads goes through (isPlainObject, isRequestId), which
 * live in common/message-checks.js because the relay's content script shares them.
 */
export { isPlainObject, isRequestId } from './relay-shared.js';

/** The protocol's version: the host's `info` answer carries it as `protocol` (docs/protocol.md, "Versions"). */
export const VERSION = 1;

/** `type` of a frame to the host. */
export const REQUEST = Object.freeze({ create: 'create', get: 'get', info: 'info', cancel: 'cancel', select: 'select' });

/** `type` of a frame from the host. */
export const REPLY = Object.freeze({ status: 'status', result: 'result', error: 'error' });

/** `status` of a status frame: codes only; the sentences the user reads are prompt/prompt.js's. */
export const STATUS = Object.freeze({
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
export const STATUS_FIELDS = Object.freeze({ detail: 'detail', accounts: 'accounts', attemptsLeft: 'attemptsLeft' });

/** `error.name` of an error frame: the DOMException names (and TypeError) the host answers with. */
export const ERROR = Object.freeze({
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
export const BINARY_MARKER = '__binary__';

export const LIMITS = Object.freeze({
  outboundFrameBytes: 1048576,       // host → browser, refused above by both browsers
  defaultInboundFrameBytes: 4194304, // browser → host, the host's default
  requestIdBytes: 4096,              // longest id the host echoes
  credentialListEntries: 64,         // allowCredentials / excludeCredentials, as Chromium caps them
});

/** publicKey.timeout: absent → the default, otherwise clamped to the bounds. One policy for both sides. */
export const TIMEOUTS = Object.freeze({
  defaultMilliseconds: 300000,
  minimumMilliseconds: 30000,
  maximumMilliseconds: 600000,
});

/** The timeout a request runs under (ms): the host's rule, so a request waiting here expires as it would there. */
export function effectiveTimeout(options) {
  const t = options && Number.isFinite(options.timeout) ? options.timeout : TIMEOUTS.defaultMilliseconds;
  return Math.min(TIMEOUTS.maximumMilliseconds, Math.max(TIMEOUTS.minimumMilliseconds, t));
}
