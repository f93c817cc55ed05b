// The security-key window (background/prompt-window.js) wired to the real bridge (router.js) as background/main.js
// wires them, with fake ports, a fake windows API and one clock the test moves: prompt-window.test.mjs and
// try-again.test.mjs drive it.
import * as promptWindow from '../background/prompt-window.js';
import * as router from '../background/router.js';
import { PROMPT_PAGE_PATH } from '../common/extension-names.js';

export const EXTENSION = 'chrome-extension://ext/';
export const PAGE_URL = `${EXTENSION}${PROMPT_PAGE_PATH}`;

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}
export function fakePort(sender) {
  const port = { sender, sent: [], onMessage: event(), onDisconnect: event(), disconnected: false };
  port.postMessage = (m) => port.sent.push(structuredClone(m));
  port.disconnect = () => { port.disconnected = true; };
  return port;
}
export const settle = () => new Promise((r) => setImmediate(r));
// Chromium's text when the user cancels its dialog; the host's for every NotAllowedError (docs/errors.md).
export const CHROMIUM_NOT_ALLOWED = 'The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.';

export function setup({ deferWindows = false, windowsFail = false, bridgeClock = false } = {}) {
  const natives = [];
  const windows = { created: [], removed: [], focused: [], pending: [] };
  let nextWindowId = 100;
  let tokens = 0;
  let bridge;
  // The prompts' clock and timers, moved by the test (advance).
  const clock = { now: 100000, timers: [] };
  const advance = (ms) => {
    clock.now += ms;
    for (const timer of clock.timers.filter((x) => !x.done && x.at <= clock.now)) { timer.done = true; timer.fn(); }
  };
  const prompts = promptWindow.createPrompts({
    now: () => clock.now,
    setTimeout: (fn, ms) => { const timer = { fn, at: clock.now + ms, done: false }; clock.timers.push(timer); return timer; },
    clearTimeout: (timer) => { timer.done = true; },
    createWindow: (options) => {
      windows.created.push(options);
      if (windowsFail) return Promise.reject(new Error('No windows here'));
      const id = nextWindowId++;
      const made = { id, tabs: [{ id: id + 1000, windowId: id }] };   // windows.create's answer: the window and its one tab
      if (!deferWindows) return Promise.resolve(made);
      return new Promise((resolve) => windows.pending.push(() => resolve(made)));
    },
    removeWindow: (id) => { windows.removed.push(id); return Promise.resolve(); },
    focusWindow: (id) => { windows.focused.push(id); return Promise.resolve(); },
    windowOf: async (tabId) => ({ window: { left: 0, top: 0, width: 1000, height: 800 } }),
    pageUrl: (path) => EXTENSION + path,
    randomToken: () => `token${++tokens}`,
    select: (id, index) => bridge.select(id, index),
    userCancelled: (id) => bridge.userCancelled(id),
    anotherWay: (id, choice) => bridge.anotherWay(id, choice),
    tryAgain: (id) => bridge.tryAgain(id),
  });
  const sitesAdded = [];
  const unfocused = new Set();   // tab ids that are not the active tab of the focused window
  bridge = router.createBridge({
    connectNative: () => { const p = fakePort(); natives.push(p); return p; },
    disconnectError: () => '',
    loadSiteList: async () => [],
    setIndicator: () => {},
    // bridgeClock: the bridge's timers (the page's timeout, the watchdog) run on the test's clock too.
    setTimeout: bridgeClock ? (fn, ms) => { const timer = { fn, at: clock.now + ms, done: false }; clock.timers.push(timer); return timer; } : () => 0,
    clearTimeout: bridgeClock ? (timer) => { if (timer) timer.done = true; } : () => {},
    now: bridgeClock ? () => clock.now : () => 1000,
    prompt: prompts,
    frameTree: async () => null,
    isTabFocused: async (tabId) => !unfocused.has(tabId),
    addSite: async (origin) => { sitesAdded.push(origin); },
  });
  bridge.start();
  const native = natives[0];
  const hostSays = (frame) => native.onMessage.fire(frame);
  const frame = (tabId = 1) => {
    const port = fakePort({ origin: 'https://login.example.com', url: 'https://login.example.com/signin', frameId: 0, tab: { id: tabId, url: 'https://login.example.com/signin' } });
    bridge.attachFrame(port);
    return { port, page: (m) => port.onMessage.fire(m) };
  };
  /** The prompt page of the n-th window connecting, as the browser would report it: from that window's one tab, or
   *  from `tab` ({id, windowId}). */
  const windowPage = (n = 0, url = windows.created[n].url, tab = { id: 1100 + n, windowId: 100 + n }) => {
    const port = fakePort({ id: 'ext', url, tab });
    prompts.attach(port, PAGE_URL);
    return port;
  };
  return { bridge, prompts, native, hostSays, frame, windows, windowPage, clock, advance, sitesAdded, unfocused };
}

/** A request from tab 1's top-level document; `pressed`: the user pressed something in the page just before
 *  (the relay's lastInput), as when clicking "Sign in"; null: no press at all. */
export async function started(t, type = 'get', options = { challenge: { __binary__: 'AQ' }, rpId: 'example.com' }, { pressed = 100 } = {}) {
  const f = t.frame();
  // What the relay reports for a top-level document of a focused tab (content/relay.js documentFacts).
  const frame = { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true,
    lastInput: pressed === null ? null : t.clock.now - pressed };
  f.page({ kind: 'request', rid: 'A', type, options, frame });
  await settle();
  return { ...f, id: t.native.sent.at(-1).id };
}
