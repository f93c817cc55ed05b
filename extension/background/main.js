/*
 * background/main.js — Chromium service worker and Firefox background page (event page), both a module: the
 * manifest names this file alone, and its imports are the load order.
 *
 * Thin browser glue around router.js: every listener is registered synchronously at top level, so a service
 * worker woken by an event finds its handler (no top-level await anywhere in this module graph, and no import():
 * Chromium refuses both in a service worker). The one native port is opened right away and kept open; while it
 * is open Chromium keeps the worker alive. The toolbar button (icon, badge, title) says whether the host serves,
 * and its popup (popup/popup.html) asks here for the host state and the last requests.
 */
import { PROMPT_PAGE_PATH, PROMPT_PORT_NAME, PROXY_DEFAULT, PROXY_KEY, SITES_KEY, STATUS_MESSAGE } from '../common/extension-names.js';
import { reasonText } from '../common/host-states.js';
import { createCertificateWatch } from './certificates.js';
import { createFocusRule } from './focus.js';
import { createHistory } from './history.js';
import { createPrompts } from './prompt-window.js';
import { createProxy } from './proxy.js';
import { PORT_NAME, createBridge } from './router.js';
import { siteMatches } from './site-list.js';

const api = globalThis.browser ?? globalThis.chrome;
const HOST_NAME = 'webauthn_bridge';

// storage.session key of the popup's last requests (background/history.js): kept across a worker restart.
const HISTORY_KEY = 'requestHistory';

// Root-relative: Chromium resolves a relative icon path against the service worker's folder, Firefox against
// the background page's.
const ICON_ON = { 16: '/icons/icon-16.png', 32: '/icons/icon-32.png' };
const ICON_OFF = { 16: '/icons/icon-off-16.png', 32: '/icons/icon-off-32.png' };
const INDICATOR = {
  connected: { text: '', color: '#2e7d32', icon: ICON_ON, title: 'webauthn-bridge: security keys are served by the webauthn-bridge host.' },
  connecting: { text: '…', color: '#f9a825', icon: ICON_ON, title: 'webauthn-bridge: connecting to the webauthn-bridge host.' },
  unavailable: { text: 'off', color: '#c62828', icon: ICON_OFF, title: '' },
};

function setIndicator({ state, reason, detail }) {
  proxy.update({ hostConnected: state === 'connected' });
  const look = INDICATOR[state] || INDICATOR.connecting;
  let title = look.title;
  if (state === 'unavailable') {
    title = `webauthn-bridge is OFF: ${reasonText(reason, detail)}. Sites use the browser's own WebAuthn.`;
  }
  // The action API may be missing (e.g. an old Firefox without "action"); the badge is only a hint.
  try {
    api.action.setBadgeText({ text: look.text });
    api.action.setBadgeBackgroundColor({ color: look.color });
    api.action.setTitle({ title });
    Promise.resolve(api.action.setIcon({ path: look.icon })).catch(() => { /* the manifest's icon stays */ });
  } catch (_) { /* no toolbar button */ }
}

async function loadSiteList() {
  const stored = await api.storage.local.get(SITES_KEY);
  return Array.isArray(stored[SITES_KEY]) ? stored[SITES_KEY] : [];
}

/** The user's "always for this site" in the security-key window: the origin goes on the per-site list (the options
 *  page shows and edits it), unless a line already covers it. */
async function addSite(origin) {
  const lines = await loadSiteList();
  if (siteMatches(lines, origin)) return;
  await api.storage.local.set({ [SITES_KEY]: [...lines, origin] });
}

/** The proxy path's setting: the user's choice (listed sites are handed back request by request, proxy.js). */
function proxySettings(stored) {
  return { enabled: typeof stored[PROXY_KEY] === 'boolean' ? stored[PROXY_KEY] : PROXY_DEFAULT };
}

/** The tab's frame tree, for the ancestors of a requesting frame (admission.js). */
function frameTree(tabId) {
  return api.webNavigation.getAllFrames({ tabId });
}

/** The bounds of the tab's window, to place the security-key window above it. */
async function windowOf(tabId) {
  const tab = await api.tabs.get(tabId);
  return { window: await api.windows.get(tab.windowId).catch(() => null) };
}

function randomToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The security-key window (prompt/prompt.html); `bridge` is defined below and only called back later.
const prompts = createPrompts({
  createWindow: (options) => api.windows.create(options),
  removeWindow: (windowId) => api.windows.remove(windowId),
  focusWindow: (windowId) => api.windows.update(windowId, { focused: true }),
  windowOf,
  pageUrl: (path) => api.runtime.getURL(path),
  randomToken,
  select: (hostId, index) => bridge.select(hostId, index),
  userCancelled: (hostId) => bridge.userCancelled(hostId),
  anotherWay: (hostId, choice) => bridge.anotherWay(hostId, choice),
  tryAgain: (hostId) => bridge.tryAgain(hostId),
  log: (level, text) => console[level === 'error' ? 'error' : 'warn'](`webauthn-bridge: ${text}`),
});

const focus = createFocusRule({ api, prompts });

// Chromium's webAuthenticationProxy, where the browser has it; `bridge` is only called back later.
const proxy = createProxy({
  wap: api.webAuthenticationProxy || null,
  bridge: { serveProxied: (fields) => bridge.serveProxied(fields), proxiedGone: (handle) => bridge.proxiedGone(handle),
    inboundFrameBytes: () => bridge.inboundFrameBytes() },
  focusedTab: focus.focusedTab,
  now: () => Date.now(),
  log: (level, text) => console[level === 'error' ? 'error' : 'warn'](`webauthn-bridge: ${text}`),
});
proxy.listen();

// What the browser says about each document's certificate (Firefox: getSecurityInfo; Chromium: its own check).
const certificates = createCertificateWatch({
  firefox: typeof api.runtime.getBrowserInfo === 'function',   // a Firefox-only API
  webRequest: api.webRequest || null,
  proxyState: () => proxy.status().state,
  log: (level, text) => console[level === 'error' ? 'error' : 'warn'](`webauthn-bridge: ${text}`),
});
certificates.listen();

// The popup's last requests; storage.session outlives a service worker restart, not the browser.
const session = api.storage.session || null;
const history = createHistory({
  save: (entries) => { if (session) session.set({ [HISTORY_KEY]: entries }).catch(() => {}); },
});
if (session) session.get(HISTORY_KEY).then((stored) => history.restore(stored[HISTORY_KEY]), () => {});

const bridge = createBridge({
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
  prompt: prompts,
  frameTree,
  isTabFocused: focus.isTabFocused,
  proxy,
  certificates,
  history,
  addSite,
});

api.runtime.onConnect.addListener((port) => {
  if (!port.sender || port.sender.id !== api.runtime.id) return;
  if (port.name === PORT_NAME) bridge.attachFrame(port);
  // Only our own prompt page, at its own URL (prompts.attach checks the window's token too).
  else if (port.name === PROMPT_PORT_NAME) prompts.attach(port, api.runtime.getURL(PROMPT_PAGE_PATH));
});

// The user closing the security-key window is Cancel.
api.windows.onRemoved.addListener((windowId) => prompts.windowRemoved(windowId));

api.tabs.onRemoved.addListener((tabId) => bridge.tabClosed(tabId));

// A request held for its tab goes as soon as the tab is active in the focused window.
api.tabs.onActivated.addListener(() => bridge.focusChanged());
api.tabs.onAttached.addListener(() => bridge.focusChanged());
api.windows.onFocusChanged.addListener((windowId) => {
  focus.noteFocusedWindow(windowId);
  bridge.focusChanged();
});
api.windows.getLastFocused().then((w) => focus.noteFocusedWindow(w.id), () => {});

// Cross-document navigations only: pushState/hash changes (SPAs mid-login) must not cancel a request.
if (api.webNavigation) {
  api.webNavigation.onCommitted.addListener((d) => bridge.frameNavigated(d.tabId, d.frameId, d.timeStamp));
}

api.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes[SITES_KEY]) bridge.sitesChanged(changes[SITES_KEY].newValue);
  if (area === 'local' && changes[PROXY_KEY]) {
    api.storage.local.get(PROXY_KEY).then((stored) => proxy.update(proxySettings(stored)), () => {});
  }
});
api.storage.local.get(PROXY_KEY).then((stored) => proxy.update(proxySettings(stored)), () => {});

// The options page and the popup ask for the host state; only our own extension pages may ask. With
// `refresh`, the host is asked for its `info` again first (keys plugged in since start-up show).
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const fromExtensionPage = typeof sender.url === 'string' && sender.url.startsWith(api.runtime.getURL(''));
  if (sender.id !== api.runtime.id || !fromExtensionPage || !message || message.kind !== STATUS_MESSAGE) return false;
  if (message.refresh !== true) {
    sendResponse(bridge.status());
    return false;
  }
  bridge.refreshInfo().then(() => sendResponse(bridge.status()), () => sendResponse(bridge.status()));
  return true;
});

bridge.start();
