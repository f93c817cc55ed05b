/*
 * probe.js — the stand-in's probes, run by Tests/E2E/test_other_extensions.py in this page: each resolves to what the
 * browser let it do ({message}, {response}, {text}, {image} …) or why not ({error}, {disconnected}).
 */
'use strict';
const ext = globalThis.browser ?? globalThis.chrome;

/** The first of: a message on the port (what a hole would give) or its disconnection with the browser's reason. */
function outcome(port, timeoutMs = 10000) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), timeoutMs);
    port.onMessage.addListener((message) => { clearTimeout(timer); resolve({ message }); });
    port.onDisconnect.addListener((p) => {
      clearTimeout(timer);
      const reason = (p && p.error && p.error.message) || (ext.runtime.lastError && ext.runtime.lastError.message);
      resolve({ disconnected: true, error: reason || '' });
    });
  });
}

/** What `work` resolves to, or {error} with why it failed. */
async function attempt(work) {
  try { return await work(); } catch (e) { return { error: String((e && e.message) || e) }; }
}

globalThis.probes = {
  native(frame) {
    let port;
    try { port = ext.runtime.connectNative('webauthn_bridge'); } catch (e) { return Promise.resolve({ error: String(e) }); }
    const done = outcome(port);
    try { port.postMessage(frame); } catch (_) { /* the port may be gone already */ }
    return done;
  },
  message: (id, message) => attempt(async () => ({ response: (await ext.runtime.sendMessage(id, message)) ?? null })),
  connect(id, name, message) {
    let port;
    try { port = ext.runtime.connect(id, { name }); } catch (e) { return Promise.resolve({ error: String(e) }); }
    const done = outcome(port, 5000);
    try { port.postMessage(message); } catch (_) { /* gone */ }
    return done;
  },
  tabs: async () => (await ext.tabs.query({})).map((t) => ({ id: t.id, url: t.url || '', title: t.title || '', windowId: t.windowId })),
  /** `url` in a popup window of the stand-in's (sized and placed as it likes), or in a tab. */
  open: (url, popup) => attempt(async () => {
    if (!popup) return { tabId: (await ext.tabs.create({ url, active: true })).id };
    const w = await ext.windows.create({ url, type: 'popup', width: 420, height: 300 });
    return { windowId: w.id, tabId: w.tabs && w.tabs[0] && w.tabs[0].id };
  }),
  navigate: (tabId, url) => attempt(async () => ({ url: (await ext.tabs.update(tabId, { url })).url || '' })),
  script: (tabId) => attempt(async () => {
    const [done] = await ext.scripting.executeScript({ target: { tabId }, func: () => document.body.innerText });
    return { text: done && done.result };
  }),
  capture: (windowId) => attempt(async () => ({ image: (await ext.tabs.captureVisibleTab(windowId, { format: 'png' })).length })),
  tab: (tabId) => attempt(async () => {
    const t = await ext.tabs.get(tabId);
    return { url: t.url || '', title: t.title || '', status: t.status };
  }),
};
