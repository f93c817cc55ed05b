/*
 * relay-shared.js — the rules the content relay shares with the background, as a module: common/message-checks.js
 * and common/frame-rules.js.
 *
 * Those two are classic scripts because content/relay.js loads them, and a content script cannot be a module in
 * either browser; nor can it import one without listing it in web_accessible_resources, which would let every page
 * fetch it, and the import would finish only after the page's first script may have run (docs/extension.md,
 * "Modules"). Imported here for their effect, each leaves one frozen object on this realm's global; this adapter
 * is the only reader of those globals, so every other file imports named bindings.
 */
import './message-checks.js';
import './frame-rules.js';

export const { REQUEST_ID_BYTES, isPlainObject, isRequestId } = globalThis.WebAuthnBridgeMessageChecks;
export const { REFUSALS, FALLBACK_CROSS_ORIGIN, parseFrameFacts, frameVerdict } = globalThis.WebAuthnBridgeFrameRules;
