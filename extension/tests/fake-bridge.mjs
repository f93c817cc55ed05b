// The background's bridge (background/router.js createBridge) over fake native and frame ports, timers, frame trees
// and tab focus, and the requests a relay sends it: what router.test.mjs and who-may-call.test.mjs drive.
import * as router from '../background/router.js';

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}
function fakePort(sender) {
  const port = { sender, sent: [], onMessage: event(), onDisconnect: event(), error: null };
  port.postMessage = (m) => { if (port.closed) throw new Error('disconnected'); port.sent.push(structuredClone(m)); };
  return port;
}

export function setup({ sites = [], now = 1000, certificates = undefined } = {}) {
  const natives = [];
  const timers = [];
  const indicator = [];
  const clock = { now };
  const unfocused = new Set();   // tab ids that are not the active tab of the focused window
  const trees = new Map();       // tab id → webNavigation.getAllFrames() answer
  const bridge = router.createBridge({
    connectNative: () => { const p = fakePort(); natives.push(p); return p; },
    disconnectError: (p) => p.error,
    loadSiteList: async () => sites,
    setIndicator: (s) => indicator.push(s),
    setTimeout: (fn, ms) => { timers.push({ fn, ms, live: true }); return timers.length - 1; },
    clearTimeout: (i) => { if (timers[i]) timers[i].live = false; },
    now: () => clock.now,
    frameTree: async (tabId) => trees.get(tabId) ?? null,
    isTabFocused: async (tabId) => !unfocused.has(tabId),
    certificates,
  });
  const native = () => natives[natives.length - 1];
  const hostSays = (frame) => native().onMessage.fire(frame);
  const hostGone = (error) => { native().error = error; native().closed = true; native().onDisconnect.fire(); };
  function frame(sender) {
    const port = fakePort(sender);
    bridge.attachFrame(port);
    const page = (m) => port.onMessage.fire(m);
    return { port, page };
  }
  return { bridge, natives, native, timers, indicator, clock, hostSays, hostGone, frame, unfocused, trees };
}
export const reconnectTimer = (t) => t.timers.filter((x) => x.ms <= 60000).at(-1);
export const settle = () => new Promise((r) => setImmediate(r));
export const topSender = (tabId = 1) => ({ id: 'ext', origin: 'https://example.com', url: 'https://example.com/login', frameId: 0, tab: { id: tabId, url: 'https://example.com/login' } });
// What content/relay.js reports for a top-level document in Chromium (policy known) and in Firefox (policy null).
export const TOP_FACTS = { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: false, policy: { get: true, create: true }, activation: false };
export const getRequest = (rid = 'p1', frame = TOP_FACTS) => ({ kind: 'request', rid, type: 'get', options: { challenge: { __binary__: 'AQID' } }, frame });
export const createRequest = (rid = 'c1', frame = TOP_FACTS) => ({ kind: 'request', rid, type: 'create', options: { challenge: { __binary__: 'AQID' } }, frame });
