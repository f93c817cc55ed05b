/*
 * protocol.js — the names and numbers of the native-messaging protocol the extension shares with the host
 * (docs/protocol.md), read from their one list, protocol-constants.js (the host's ProtocolConstantsTests hold
 * its typed copies to the same file).
 *
 * Also re-exports the checks every message the extension reads goes through (isPlainObject, isRequestId), which
 * live in common/message-checks.js because the relay's content script shares them.
 */
import constants from './protocol-constants.js';

export { isPlainObject, isRequestId } from './relay-shared.js';

/** A list of the JSON as a frozen map from each value to itself: REPLY.status, ERROR.NotAllowedError. A name not
 *  in the list reads as undefined, which a test of the code using it would see. */
function names(list) {
  return Object.freeze(Object.fromEntries(list.map((value) => [value, value])));
}

/** The protocol's version: the host's `info` answer carries it as `protocol` (docs/protocol.md, "Versions"). */
export const VERSION = constants.protocolVersion;

/** `type` of a frame to the host, and of a frame from it. */
export const REQUEST = names(constants.requestTypes);
export const REPLY = names(constants.replyTypes);

/** `type` of a frame on the Security keys page's own connection (keys/), which opens with KEY_REQUEST.manage. */
export const KEY_REQUEST = names(constants.keyRequestTypes);

/** `status` of a status frame: codes only; the sentences the user reads are prompt/view.js's. */
export const STATUS = names(constants.statuses);

/** The members a status frame may carry besides id, type and status: `detail` (the host's words, for
 *  `key-unusable`), `accounts` (`select-account`), `attemptsLeft` (`pin` after a wrong PIN, a number). */
export const STATUS_FIELDS = names(constants.statusFields);

/** `error.name` of an error frame: the DOMException names (and TypeError) the host answers with. */
export const ERROR = names(constants.errorNames);

/** Reasons (an error frame's `detail`) the extension acts on: a full key offers the Security keys page. */
export const ERROR_DETAILS = Object.freeze({ ...constants.errorDetails });

/** The member name of a binary value: {"__binary__": "<base64url>"}. */
export const BINARY_MARKER = constants.binaryMarker;

/** Frame sizes, the longest request id, list caps. */
export const LIMITS = Object.freeze({ ...constants.limits });

/** publicKey.timeout: absent → the default, otherwise clamped to the bounds. One policy for both sides. */
export const TIMEOUTS = Object.freeze({ ...constants.timeouts });

/** The timeout a request runs under (ms): the host's rule, so a request waiting here expires as it would there. */
export function effectiveTimeout(options) {
  const t = options && Number.isFinite(options.timeout) ? options.timeout : TIMEOUTS.defaultMilliseconds;
  return Math.min(TIMEOUTS.maximumMilliseconds, Math.max(TIMEOUTS.minimumMilliseconds, t));
}
