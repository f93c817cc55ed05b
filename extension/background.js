/*
 * background.js — Chromium service worker (classic) and Firefox background page (event page).
 *
 * Thin browser glue around background/router.js: every listener is registered synchronously at top level,
 * so a service worker woken by an event finds its handler. The one native port is opened right away and kept
 * open; while it is open Chromium keeps the worker alive.
 */
'use strict';

// Chromium runs this file alone as a service worker; Firefox lists router.js before it in background.scripts.
if (typeof importScripts === 'function' && typeof WebAuthnBridgeRouter === 'undefined') {
  importScripts('background/router.js');
}

const api = globalThis.browser ?? globalThis.chrome;
const HOST_NAME = 'webauthn_bridge';
const SITES_KEY = 'browserSites';

const INDICATOR = {
  connected: { text: '', color: '#2e7d32', title: 'webauthn-bridge: security keys are served by the webauthn-bridge host.' },
  connecting: { text: '…', color: '#f9a825', title: 'webauthn-bridge: connecting to the webauthn-bridge host.' },
  unavailable: { text: 'off', color: '#c62828', title: '' },
};

const REASONS = {
  'host-missing': 'the native host webauthn_bridge is not installed for this browser (run install.sh)',
  'host-forbidden': 'the native host does not allow this extension (re-run install.sh)',
  'host-failed': 'the native host failed to start (see `webauthn-bridge doctor`)',
};

function setIndicator({ state, reason, detail }) {
  const look = INDICATOR[state] || INDICATOR.connecting;
  let title = look.title;
  if (state === 'unavailable') {
    title = `webauthn-bridge is OFF: ${REASONS[reason] || detail || reason}. Sites use the browser's own WebAuthn.`;
  }
  // The action API may be missing (e.g. an old Firefox without "action"); the badge is only a hint.
  try {
    api.action.setBadgeText({ text: look.text });
    api.action.setBadgeBackgroundColor({ color: look.color });
    api.action.setTitle({ title });
  } catch (_) { /* no toolbar button */ }
}

async function loadSiteList() {
  const stored = await api.storage.local.get(SITES_KEY);
  return Array.isArray(stored[SITES_KEY]) ? stored[SITES_KEY] : [];
}

const bridge = WebAuthnBridgeRouter.createBridge({
  connectNative: () => api.runtime.connectNative(HOST_NAME),
  // Firefox puts the reason on port.error; Chromium on runtime.lastError (reading it also keeps Chromium
  // from logging "Unchecked runtime.lastError").
  disconnectError: (port) => (port && port.error && port.error.message) || (api.runtime.lastError && api.runtime.lastError.message) || '',
  loadSiteList,
  setIndicator,
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t),
  now: () => Date.now(),
  log: (level, text) => { if (level !== 'debug') console[level === 'error' ? 'error' : 'warn'](`webauthn-bridge: ${text}`); },
});

api.runtime.onConnect.addListener((port) => {
  if (port.name === WebAuthnBridgeRouter.PORT_NAME && port.sender && port.sender.id === api.runtime.id) bridge.attachFrame(port);
});

api.tabs.onRemoved.addListener((tabId) => bridge.tabClosed(tabId));

// Cross-document navigations only: pushState/hash changes (SPAs mid-login) must not cancel a request.
if (api.webNavigation) {
  api.webNavigation.onCommitted.addListener((d) => bridge.frameNavigated(d.tabId, d.frameId, d.timeStamp));
}

api.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes[SITES_KEY]) bridge.sitesChanged(changes[SITES_KEY].newValue);
});

// The options page asks for the host state; only our own extension pages may ask.
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const fromExtensionPage = typeof sender.url === 'string' && sender.url.startsWith(api.runtime.getURL(''));
  if (sender.id !== api.runtime.id || !fromExtensionPage || !message || message.kind !== 'bridge-status') return false;
  sendResponse(bridge.status());
  return false;
});

if (api.action && api.action.onClicked) {
  api.action.onClicked.addListener(() => api.runtime.openOptionsPage());
}

bridge.start();
