/*
 * host-states.js — what the toolbar button's title and the popup say about the host's state, in one place.
 * States and reasons come from background/host-port.js (classifyDisconnect): "connected", "connecting",
 * "unavailable" with reason "host-missing" | "host-forbidden" | "host-failed", or "connecting" with
 * "host-exited" while the background reconnects.
 */

export const REASONS = Object.freeze({
  'host-missing': 'the native host webauthn_bridge is not installed for this browser (run install.sh)',
  'host-forbidden': 'the native host does not allow this extension (re-run install.sh)',
  'host-failed': 'the native host failed to start (see `webauthn-bridge doctor`)',
  'host-exited': 'the native host stopped; reconnecting',
});

/** Why the host is not serving, as a phrase; the browser's own message when the reason is not known. */
export function reasonText(reason, detail) {
  return Object.prototype.hasOwnProperty.call(REASONS, reason) ? REASONS[reason] : (detail || reason || 'unknown reason');
}
