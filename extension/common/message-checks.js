/*
 * message-checks.js — the checks every message the extension reads goes through: isPlainObject, and
 * isRequestId, the one rule for a request id (the host's: the longest id it echoes), whether the background's
 * id at the host or a page's own.
 *
 * A classic script, because the relay's content script loads it (a content script cannot be a module): it puts
 * one frozen object, `WebAuthnBridgeMessageChecks`, on the global of the realm that runs it — the relay's isolated
 * world (the page's own world cannot see it) or the background. The background and its tests reach it as a
 * module through common/relay-shared.js. The page's MAIN world cannot share it: Chromium injects a file listed in
 * two content-script entries only into the first (docs/extension.md), so page/codec.js keeps that world's own
 * isPlainObject.
 */
(function (root) {
  'use strict';

  /** limits.requestIdBytes of common/protocol-constants.js (this classic file cannot import it; a test checks). */
  const REQUEST_ID_BYTES = 4096;

  /** Whether a frame, or a member of one, is a JSON object (not null, not an array). */
  function isPlainObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  const utf8 = new TextEncoder();

  /** Whether `value` may be a request id: a non-empty string of at most REQUEST_ID_BYTES UTF-8 bytes, the
   *  longest the host echoes. One rule for the ids the extension sends the host and those a page sends it. */
  function isRequestId(value) {
    if (typeof value !== 'string' || value.length === 0) return false;
    // A UTF-16 code unit is at most 3 UTF-8 bytes: only a long string needs encoding.
    return value.length * 3 <= REQUEST_ID_BYTES || utf8.encode(value).length <= REQUEST_ID_BYTES;
  }

  root.WebAuthnBridgeMessageChecks = Object.freeze({ REQUEST_ID_BYTES, isPlainObject, isRequestId });
})(globalThis);
