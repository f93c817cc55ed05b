/*
 * options.js — the per-site switch (storage.local "browserSites": string[]), Chromium's path (storage.local
 * "proxyPath": boolean, background/proxy.js) and a view of the host state. background/main.js picks up changes
 * through storage.onChanged; nothing else is stored.
 */
import { PROXY_DEFAULT, PROXY_KEY, SITES_KEY, STATUS_MESSAGE } from '../common/extension-names.js';
import { hostSummary, keyLines } from '../popup/view.js';

const api = globalThis.browser ?? globalThis.chrome;
// What background/proxy.js's states mean for the user.
const PROXY_STATES = {
  attached: 'Requests are served through Chromium\'s WebAuthn proxy',
  off: 'Requests are served by the bridge\'s page script (the proxy is off)',
  detached: 'Requests are served by the bridge\'s page script: the proxy is not attached',
  taken: 'Requests are served by the bridge\'s page script: another extension holds Chromium\'s WebAuthn proxy',
};
const sites = document.getElementById('sites');
const saved = document.getElementById('saved');

async function load() {
  const stored = await api.storage.local.get(SITES_KEY);
  sites.value = (Array.isArray(stored[SITES_KEY]) ? stored[SITES_KEY] : []).join('\n');
}

async function save() {
  const lines = sites.value.split('\n').map((line) => line.trim()).filter(Boolean);
  await api.storage.local.set({ [SITES_KEY]: lines });
  saved.textContent = 'Saved.';
  setTimeout(() => { saved.textContent = ''; }, 2000);
}

let lastStatus = null;
// The page reads the background's status again while it is open, so what it says follows the host (a host that
// connects a moment after the page opened is shown connected, and the proxy line with it).
const REFRESH_MS = 1000;

/** The host line in the popup's words (popup/view.js hostSummary), so the two never say different things. */
async function showHost() {
  const el = document.getElementById('host');
  try {
    const s = await api.runtime.sendMessage({ kind: STATUS_MESSAGE });
    lastStatus = s;
    const summary = hostSummary(s);
    el.dataset.state = summary.state;
    el.textContent = `${summary.label}: ${summary.line}`;
    showDetails(summary.state === 'connected' ? s.info : null);
    showPath(s.proxy);
  } catch (error) {
    el.textContent = `The extension's background did not answer (${error.message})`;
  }
}

/** Which path serves this browser's requests, and how many the proxy has served since the browser started. */
async function showPath(proxy) {
  const toggle = document.getElementById('proxy');
  const line = document.getElementById('path');
  if (!proxy || proxy.state === 'unsupported') {
    document.getElementById('proxy-section').hidden = true;
    toggle.closest('p').hidden = true;
    line.textContent = 'This browser has no WebAuthn proxy: requests are served by the bridge\'s page script.';
    return;
  }
  const stored = await api.storage.local.get(PROXY_KEY);
  toggle.checked = proxy.state === 'attached' || (stored[PROXY_KEY] ?? PROXY_DEFAULT) === true;
  const why = proxy.detail ? ` (${proxy.detail})` : '';
  line.textContent = `${PROXY_STATES[proxy.state] || proxy.state}${why}. Served through the proxy so far: ${proxy.served}.`;
}

async function saveProxy(event) {
  await api.storage.local.set({ [PROXY_KEY]: event.target.checked });
  setTimeout(showHost, 300);
}

/** The host's `info` answer, as it was when the extension connected: versions, keys, where the log is. */
function showDetails(info) {
  const list = document.getElementById('details');
  list.replaceChildren();
  if (!info) return;
  const keys = (info.devices || []).map((d) => {
    const lines = keyLines(d);
    return lines.secondary ? `${lines.primary} (${lines.secondary})` : lines.primary;
  }).join(', ') || 'none plugged in';
  for (const line of [`Keys: ${keys}`, `Log: ${info.logPath || '?'} (level ${info.logLevel || '?'})`,
    'Trouble? Run: webauthn-bridge doctor']) {
    const item = document.createElement('li');
    item.textContent = line;
    list.append(item);
  }
}

/** Everything a bug report needs, and nothing secret: the host's info, the extension's version, the browser.
 *  Not the last requests: which sites the user signed in to is not the report's business. */
async function copyDiagnostics() {
  const host = lastStatus ? { ...lastStatus, history: undefined } : null;
  const report = { extension: api.runtime.getManifest().version, userAgent: navigator.userAgent, host };
  await navigator.clipboard.writeText(JSON.stringify(report, null, 2));
  document.getElementById('copied').textContent = 'Copied.';
}

document.getElementById('proxy').addEventListener('change', (e) => { saveProxy(e).catch(() => {}); });
document.getElementById('save').addEventListener('click', () => { save().catch((e) => { saved.textContent = e.message; }); });
document.getElementById('copy').addEventListener('click', () => {
  copyDiagnostics().catch((e) => { document.getElementById('copied').textContent = e.message; });
});
load();
showHost();
setInterval(() => { if (document.visibilityState === 'visible') showHost(); }, REFRESH_MS);
