'use strict';
const ext = globalThis.browser ?? globalThis.chrome;

/** The first of: a message on the port (what a hole would give) or its disconnection with the browser's reason. */
function outcome(port, timeoutMs = 10000) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), timeoutMs);
    port.onMessage.addListener((message) => { clearTimeout(timer); resolve({ message }); });
    port.onDisconnect.addListener((p) => {
      clearTimeout(timer);
      const error = (p && p.error && p.error.message) || (ext.runtime.lastError && ext.runtime.lastError.message) || '';
      resolve({ disconnected: true, error });
    });
  });
}

globalThis.probes = {
  native(frame) {
    let port;
    try { port = ext.runtime.connectNative('webauthn_bridge'); } catch (e) { return Promise.resolve({ thrown: String(e) }); }
    const done = outcome(port);
    try { port.postMessage(frame); } catch (e) { /* the port may be gone already */ }
    return done;
  },
  async message(id, message) {
    try { return { response: await ext.runtime.sendMessage(id, message) ?? null }; } catch (e) { return { error: String(e && e.message || e) }; }
  },
  connect(id, name, message) {
    let port;
    try { port = ext.runtime.connect(id, { name }); } catch (e) { return Promise.resolve({ thrown: String(e) }); }
    const done = outcome(port, 5000);
    try { port.postMessage(message); } catch (e) { /* gone */ }
    return done;
  },
  frame(url) {
    return new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.src = url;
      frame.addEventListener('load', () => resolve(true), { once: true });
      document.body.append(frame);
    });
  },
  async tabs() {
    return (await ext.tabs.query({})).map((t) => ({ id: t.id, url: t.url || '', title: t.title || '', windowId: t.windowId }));
  },
  async open(url, popup) {
    try {
      if (popup) {
        const w = await ext.windows.create({ url, type: 'popup', width: 420, height: 300 });
        return { windowId: w.id, tabId: w.tabs && w.tabs[0] && w.tabs[0].id };
      }
      const t = await ext.tabs.create({ url, active: true });
      return { tabId: t.id };
    } catch (e) { return { error: String(e && e.message || e) }; }
  },
  async script(tabId) {
    try {
      const [done] = await ext.scripting.executeScript({ target: { tabId }, func: () => document.body.innerText });
      return { text: done && done.result };
    } catch (e) { return { error: String(e && e.message || e) }; }
  },
  async capture(windowId) {
    try { return { image: (await ext.tabs.captureVisibleTab(windowId, { format: 'png' })).length }; } catch (e) { return { error: String(e && e.message || e) }; }
  },
  async navigate(tabId, url) {
    try { const t = await ext.tabs.update(tabId, { url }); return { url: t.url || '', pendingUrl: t.pendingUrl || '' }; } catch (e) { return { error: String(e && e.message || e) }; }
  },
  async tab(tabId) {
    try { const t = await ext.tabs.get(tabId); return { url: t.url || '', title: t.title || '', status: t.status }; } catch (e) { return { error: String(e) }; }
  },
};
