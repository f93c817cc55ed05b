// background/proxy.js: Chromium's webAuthenticationProxy path, with a fake chrome.webAuthenticationProxy and the
// real router.js behind it (fake native port); its codec is proxy-codec.test.mjs's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import chromium from '../common/chromium-texts.js';
import { createHistory } from '../background/history.js';
import { createProxy } from '../background/proxy.js';
import * as router from '../background/router.js';
import { CREATE_JSON, GET_JSON, HOST_ASSERTION, ORIGIN } from './proxy-requests.mjs';

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}
function fakeWap({ attachError } = {}) {
  const wap = {
    calls: [], completed: [],
    attach: async () => { wap.calls.push('attach'); return attachError; },
    detach: async () => { wap.calls.push('detach'); },
    completeCreateRequest: async (d) => { wap.completed.push({ type: 'create', ...d }); },
    completeGetRequest: async (d) => { wap.completed.push({ type: 'get', ...d }); },
    completeIsUvpaaRequest: async (d) => { wap.completed.push({ type: 'uvpaa', ...d }); },
    onCreateRequest: event(), onGetRequest: event(), onIsUvpaaRequest: event(), onRequestCanceled: event(),
  };
  return wap;
}
function fakePort(sender) {
  const port = { sender, sent: [], onMessage: event(), onDisconnect: event() };
  port.postMessage = (m) => port.sent.push(structuredClone(m));
  return port;
}
const settle = () => new Promise((r) => setImmediate(r));

function setup({ focused = { tabId: 7, url: `${ORIGIN}/login` }, unfocused = new Set(), wap = fakeWap(), sites = [] } = {}) {
  const natives = [];
  const clock = { now: 1000 };
  let bridge = null;
  const timers = [];
  const history = createHistory();
  const proxy = createProxy({
    wap, now: () => clock.now, focusedTab: async () => focused,
    setTimeout: (fn, ms) => { const timer = { fn, ms, cleared: false }; timers.push(timer); return timer; },
    clearTimeout: (timer) => { timer.cleared = true; },
    bridge: { serveProxied: (f) => bridge.serveProxied(f), proxiedGone: (h) => bridge.proxiedGone(h), inboundFrameBytes: () => bridge.inboundFrameBytes() },
  });
  bridge = router.createBridge({
    connectNative: () => { const p = fakePort(); natives.push(p); return p; },
    disconnectError: () => '', loadSiteList: async () => sites, setIndicator: () => {},
    setTimeout: () => 0, clearTimeout: () => {}, now: () => clock.now,
    frameTree: async () => null, isTabFocused: async (tabId) => !unfocused.has(tabId), proxy, history,
  });
  proxy.listen();
  bridge.start();
  const native = () => natives.at(-1);
  return { wap, proxy, bridge, native, clock, timers, history };
}

test('attached only while chosen, the host connected and a request needs it; a first attach tells whether another holds it', async () => {
  const t = setup();
  await t.proxy.update({ enabled: false, hostConnected: true });
  // A worker started anew may find Chromium still attached to the extension: the first "off" detaches.
  assert.deepEqual(t.wap.calls, ['detach']);
  assert.equal(t.proxy.status().state, 'off');
  await t.proxy.update({ hostConnected: false });
  assert.deepEqual(t.wap.calls, ['detach'], 'then only what it attached itself');
  await t.proxy.update({ enabled: true, hostConnected: true });
  assert.deepEqual(t.wap.calls, ['detach', 'attach', 'detach'], 'attached once to learn it can be, then detached');
  assert.deepEqual([t.proxy.status().state, t.proxy.isAttached(), t.proxy.serves()], ['attached', false, true]);
  assert.equal(await t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0 }), true);
  assert.deepEqual(t.wap.calls.slice(3), ['attach'], 'attached for the announced request');
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  await settle();
  t.native().onMessage.fire({ id: t.native().sent.at(-1).id, type: 'result', credential: HOST_ASSERTION });
  await settle();
  await t.proxy.settled();
  assert.deepEqual(t.wap.calls.slice(3), ['attach', 'detach'], 'detached once answered');
  assert.equal(t.wap.completed.length, 1);
  await t.proxy.update({ hostConnected: false });
  assert.equal(t.proxy.status().state, 'detached');
  assert.equal(t.proxy.serves(), false);
  await t.proxy.update({ hostConnected: true });
  assert.deepEqual(t.wap.calls.slice(5), [], 'nothing needs it');
  assert.equal(t.proxy.status().state, 'attached');
});

test('an announcement whose call never comes leaves the proxy attached for its time only', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  await t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0 });
  assert.equal(t.proxy.isAttached(), true);
  t.clock.now += 10001;
  t.timers.find((timer) => timer.ms === 10001).fn();
  await t.proxy.settled();
  assert.equal(t.proxy.isAttached(), false);
});

test('a request announced while the proxy detaches is proxied: the attach follows the detach; a second tab keeps it attached', async () => {
  const wap = fakeWap();
  let detached = null;
  wap.detach = () => { wap.calls.push('detach'); return new Promise((resolve) => { detached = resolve; }); };
  const t = setup({ wap });
  const ready = t.proxy.update({ enabled: true, hostConnected: true });
  await settle();
  detached();   // the worker's first detach (a worker started anew)
  await settle();
  detached();   // the probe's
  await ready;
  const first = t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0 });
  assert.equal(await first, true);
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  await settle();
  t.native().onMessage.fire({ id: t.native().sent.at(-1).id, type: 'error', error: { name: 'NotAllowedError', message: '' } });
  await settle();
  assert.equal(t.wap.calls.at(-1), 'detach', 'answered: the detach is under way');
  const second = t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'BAUG' } }, tabId: 5, frameId: 0 });
  let told = null;
  second.then((ok) => { told = ok; });
  await settle();
  assert.equal(told, null, 'the page is not told to call while the proxy detaches');
  detached();
  assert.equal(await second, true);
  assert.deepEqual(t.wap.calls.slice(-2), ['detach', 'attach']);
  assert.equal(t.proxy.isAttached(), true);
  // Two tabs: one answered while the other's call is proxied keeps the proxy attached.
  await t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'CQkJ' } }, tabId: 7, frameId: 0 });
  t.wap.onGetRequest.fire({ requestId: 2, requestDetailsJson: GET_JSON('BAUG') });
  await settle();
  t.native().onMessage.fire({ id: t.native().sent.at(-1).id, type: 'error', error: { name: 'NotAllowedError', message: '' } });
  await settle();
  await t.proxy.settled();
  assert.equal(t.proxy.isAttached(), true, 'the other tab\'s announced call is still to come');
});

test('a conditional get waiting for the detach is told once nothing needs the proxy, at once when nothing does', async () => {
  const t = setup();
  const [port, frame] = topDocumentOfTab3(t);
  await t.proxy.update({ enabled: true, hostConnected: true });
  port.onMessage.fire({ kind: 'when-detached', rid: 'c0', frame });
  await settle();
  assert.deepEqual(port.sent.at(-1), { kind: 'detached', rid: 'c0' }, 'detached already');
  await t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0 });
  port.onMessage.fire({ kind: 'when-detached', rid: 'c1', frame });
  await settle();
  assert.deepEqual(port.sent.at(-1), { kind: 'detached', rid: 'c0' }, 'attached: it waits');
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  await settle();
  t.native().onMessage.fire({ id: t.native().sent.at(-1).id, type: 'result', credential: HOST_ASSERTION });
  await settle();
  await t.proxy.settled();
  assert.deepEqual(port.sent.at(-1), { kind: 'detached', rid: 'c1' }, 'told once the answered request let go of it');
});

test('the reason a proxy is not attached is today\'s: none once the host that was missing connects', async () => {
  const t = setup();
  await t.proxy.update({ enabled: false, hostConnected: false });
  assert.deepEqual(t.proxy.status(), { state: 'off', detail: '', served: 0, pending: 0, attachedNow: false });
  await t.proxy.update({ enabled: true });
  assert.equal(t.proxy.status().detail, 'the host is not connected');
  await t.proxy.update({ enabled: false });
  await t.proxy.update({ hostConnected: true });
  assert.deepEqual(t.proxy.status(), { state: 'off', detail: '', served: 0, pending: 0, attachedNow: false });
  await t.proxy.update({ enabled: true });
  assert.deepEqual([t.proxy.status().state, t.proxy.status().detail], ['attached', '']);
});

test('another extension holding the proxy leaves the page path serving', async () => {
  const t = setup({ wap: fakeWap({ attachError: 'Another extension is already attached' }) });
  await t.proxy.update({ enabled: true, hostConnected: true });
  assert.equal(t.proxy.isAttached(), false);
  assert.deepEqual(t.proxy.status(), { state: 'taken', detail: 'Another extension is already attached', served: 0, pending: 0,
    attachedNow: false });
});

test('a browser without the API (Firefox) never attaches', async () => {
  const proxy = createProxy({ wap: null, now: () => 0, focusedTab: async () => null, bridge: {} });
  await proxy.update({ enabled: true, hostConnected: true });
  assert.equal(proxy.isAttached(), false);
  assert.equal(proxy.status().state, 'unsupported');
});

test('an announced request is served as its tab and frame, with the top-level origin, and completed with responseJson', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.proxy.announce({ type: 'get', origin: 'https://idp.example', options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 9, crossOrigin: true, topOrigin: 'https://shop.example' });
  t.wap.onGetRequest.fire({ requestId: 41, requestDetailsJson: GET_JSON('AQID', false, 'https://idp.example') });
  await settle();
  const sent = t.native().sent.at(-1);
  assert.equal(sent.id, 'r1-t3-f9-p1-proxy', 'the host log says which path served');
  assert.equal(sent.origin, 'https://idp.example');
  assert.equal(sent.topOrigin, 'https://shop.example');
  assert.equal(sent.crossOrigin, true);
  t.native().onMessage.fire({ id: sent.id, type: 'result', credential: HOST_ASSERTION });
  await settle();
  assert.equal(t.wap.completed.length, 1);
  assert.equal(t.wap.completed[0].requestId, 41);
  assert.equal(JSON.parse(t.wap.completed[0].responseJson).response.signature, 'MEUC');
  assert.equal(t.proxy.status().served, 1);
});

test('host errors reach the page as the DOMException the host named', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.wap.onCreateRequest.fire({ requestId: 5, requestDetailsJson: CREATE_JSON });
  await settle();
  const sent = t.native().sent.at(-1);
  assert.equal(sent.id, 'r1-t7-f0-p1-proxy', 'unannounced: the focused tab showing the origin');
  t.native().onMessage.fire({ id: sent.id, type: 'error', error: { name: 'InvalidStateError', message: 'excluded' }, detail: 'for the user' });
  await settle();
  assert.deepEqual(t.wap.completed, [{ type: 'create', requestId: 5, error: { name: 'InvalidStateError', message: 'excluded' } }]);
});

test('an unannounced request from no focused tab of its origin, or from a cross-origin frame, never reaches the host', async () => {
  const t = setup({ focused: { tabId: 7, url: 'https://other.example/' } });
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  t.wap.onGetRequest.fire({ requestId: 2, requestDetailsJson: GET_JSON('AQID', false) });
  await settle();
  assert.equal(t.native().sent.length, 1, 'only the info request');
  const byId = Object.fromEntries(t.wap.completed.map((c) => [c.requestId, c.error.message]));
  assert.deepEqual(byId, {
    1: chromium.focus,
    2: chromium.notAllowed,
  });
});

test('an announcement is used once and only for the same type, origin, challenge and frame kind', async () => {
  const t = setup({ focused: null });
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0, crossOrigin: false, topOrigin: '' });
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON('AQIE') });   // other challenge
  t.wap.onGetRequest.fire({ requestId: 2, requestDetailsJson: GET_JSON('AQID', false) }); // claims a cross-origin frame
  await settle();
  assert.equal(t.native().sent.length, 1);
  t.wap.onGetRequest.fire({ requestId: 3, requestDetailsJson: GET_JSON('AQID') });
  await settle();
  assert.equal(t.native().sent.length, 1, 'the cross-origin claim consumed the announcement: no second use');
  assert.equal(t.wap.completed.length, 3);
});

test('a held request waits for its tab; Chromium cancelling it drops it, and a running one is cancelled at the host', async () => {
  const unfocused = new Set([3]);
  const t = setup({ unfocused });
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'AQID' } }, tabId: 3, frameId: 0, crossOrigin: false, topOrigin: '' });
  t.wap.onGetRequest.fire({ requestId: 8, requestDetailsJson: GET_JSON() });
  await settle();
  assert.equal(t.native().sent.length, 1, 'held: its tab is in the background');
  t.wap.onRequestCanceled.fire(8);
  unfocused.clear();
  t.bridge.focusChanged();
  await settle();
  assert.equal(t.native().sent.length, 1, 'cancelled while held: never sent');
  t.wap.onGetRequest.fire({ requestId: 9, requestDetailsJson: GET_JSON('AQIF') });
  await settle();
  const sent = t.native().sent.at(-1);
  t.wap.onRequestCanceled.fire(9);
  assert.deepEqual(t.native().sent.at(-1), { id: sent.id, type: 'cancel' });
  assert.equal(t.wap.completed.length, 0, 'Chromium settled those itself');
});

test('a proxied request of a tab that closes is completed with AbortError', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.wap.onGetRequest.fire({ requestId: 4, requestDetailsJson: GET_JSON() });
  await settle();
  t.bridge.tabClosed(7);
  await settle();
  assert.deepEqual(t.wap.completed, [{ type: 'get', requestId: 4, error: { name: 'AbortError', message: chromium.aborted } }]);
});

/** A top-level document of tab 3 at ORIGIN, attached to the bridge: its port, and the facts its relay reports. */
function topDocumentOfTab3(t) {
  const frame = { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: false, policy: { get: true, create: true }, activation: false };
  const port = fakePort({ id: 'ext', origin: ORIGIN, url: `${ORIGIN}/login`, frameId: 0, tab: { id: 3, url: `${ORIGIN}/login` } });
  t.bridge.attachFrame(port);
  return [port, frame];
}

test('with the proxy attached, an admitted page request is announced and answered fallback; detached, it goes to the host', async () => {
  const t = setup();
  const [port, frame] = topDocumentOfTab3(t);
  await t.proxy.update({ enabled: true, hostConnected: true });
  port.onMessage.fire({ kind: 'request', rid: 'p1', type: 'get', options: { challenge: { __binary__: 'AQID' } }, frame });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'p1', reason: 'proxy' }]);
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  await settle();
  const proxied = t.native().sent.at(-1);
  assert.equal(proxied.id, 'r1-t3-f0-p2-proxy');
  t.native().onMessage.fire({ id: proxied.id, type: 'result', credential: HOST_ASSERTION });
  await t.proxy.update({ enabled: false });
  port.onMessage.fire({ kind: 'request', rid: 'p2', type: 'get', options: { challenge: { __binary__: 'AQIE' } }, frame });
  await settle();
  assert.equal(port.sent.length, 1, 'the page path: nothing back to the page until the host answers');
  assert.equal(t.native().sent.at(-1).id, 'r2-t3-f0-p1');
});

test('a conditional create is the browser\'s own: fallback to the page, and refused when Chromium proxies it back', async () => {
  const t = setup();
  const [port, frame] = topDocumentOfTab3(t);
  port.onMessage.fire({ kind: 'request', rid: 'c1', type: 'create', options: { challenge: { __binary__: 'AQID' } }, frame, mediation: 'conditional' });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'c1', reason: 'conditional' }], 'detached: Chromium\'s own answers');
  await t.proxy.update({ enabled: true, hostConnected: true });
  const challenge = JSON.parse(CREATE_JSON).challenge;
  port.onMessage.fire({ kind: 'request', rid: 'c2', type: 'create', options: { challenge: { __binary__: challenge } }, frame, mediation: 'conditional' });
  await settle();
  assert.deepEqual(port.sent[1], { kind: 'fallback', rid: 'c2', reason: 'conditional' });
  t.wap.onCreateRequest.fire({ requestId: 21, requestDetailsJson: CREATE_JSON });
  await settle();
  assert.equal(t.native().sent.length, 1, 'only the info request: nothing reached the host');
  assert.deepEqual(t.wap.completed, [{ type: 'create', requestId: 21, error: { name: 'NotAllowedError', message: chromium.notAllowed } }]);
});

/** A page request announced and proxied back, at the host waiting for the touch: [page port, host id]. */
async function proxiedAtTheHost(t, rid = 'p1') {
  const [port, frame] = topDocumentOfTab3(t);
  await t.proxy.update({ enabled: true, hostConnected: true });
  port.onMessage.fire({ kind: 'request', rid, type: 'get', options: { challenge: { __binary__: 'AQID' }, timeout: 60000 }, frame });
  await settle();
  t.wap.onGetRequest.fire({ requestId: 1, requestDetailsJson: GET_JSON() });
  await settle();
  const id = t.native().sent.at(-1).id;
  t.native().onMessage.fire({ id, type: 'status', status: 'touch' });
  return [port, id];
}

test('another way on the proxy path: completed "handed back", the proxy detached, then the page told; the path serves again when it settles', async () => {
  const t = setup();
  const [port, id] = await proxiedAtTheHost(t);
  t.wap.calls.length = 0;
  t.bridge.anotherWay(id);
  assert.deepEqual(t.native().sent.at(-1), { id, type: 'cancel' }, 'the host stops');
  await settle();
  assert.deepEqual(t.wap.completed, [{ type: 'get', requestId: 1, error: { name: 'WebAuthnBridgeHandedBack', message: '' } }]);
  assert.deepEqual(t.wap.calls, ['detach'], 'detached after the completion: the page\'s call ends with the marker');
  assert.deepEqual(port.sent.at(-1), { kind: 'fallback', rid: 'p1', reason: 'another-way' }, 'then the page calls Chromium\'s own');
  assert.match(t.proxy.status().detail, /handed to Chromium's own/);
  assert.equal(t.timers.at(-1).ms, 300000 + 30000, 'detached at most the request\'s time (none asked: 5 min) and a grace');
  port.onMessage.fire({ kind: 'below-done', rid: 'other' });
  await t.proxy.settled();
  assert.deepEqual(t.wap.calls, ['detach'], 'another request\'s word changes nothing');
  assert.equal(t.proxy.serves(), false, 'the next request takes the page path meanwhile');
  port.onMessage.fire({ kind: 'below-done', rid: 'p1' });
  await t.proxy.settled();
  assert.deepEqual(t.wap.calls, ['detach'], 'attached again only when a request needs it');
  assert.deepEqual([t.proxy.serves(), t.proxy.status().state], [true, 'attached']);
  assert.equal(t.timers.at(-1).cleared, true);
});

test('another way on the proxy path: a page that goes away, or never says, has the proxy path serve again', async () => {
  const t = setup();
  const [port, id] = await proxiedAtTheHost(t);
  t.bridge.anotherWay(id);
  await settle();
  await t.proxy.settled();
  assert.equal(t.proxy.serves(), false);
  port.onDisconnect.fire();
  await t.proxy.settled();
  assert.equal(t.proxy.serves(), true, 'its tab closed');
  const t2 = setup();
  const [, id2] = await proxiedAtTheHost(t2);
  t2.bridge.anotherWay(id2);
  await settle();
  t2.timers.at(-1).fn();
  await t2.proxy.settled();
  assert.equal(t2.proxy.serves(), true, 'its time is over');
});

/** Tab 5 (not focused): a get announced, answered `fallback` (`proxy`), and proxied as Chromium's request 2. */
async function proxiedInTab5(t) {
  const frame = { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: false, policy: { get: true, create: true }, activation: false };
  const other = fakePort({ id: 'ext', origin: ORIGIN, url: `${ORIGIN}/b`, frameId: 0, tab: { id: 5, url: `${ORIGIN}/b` } });
  t.bridge.attachFrame(other);
  other.onMessage.fire({ kind: 'request', rid: 'b1', type: 'get', options: { challenge: { __binary__: 'BAUG' } }, frame });
  await settle();
  assert.deepEqual(other.sent.at(-1), { kind: 'fallback', rid: 'b1', reason: 'proxy' });
  t.wap.onGetRequest.fire({ requestId: 2, requestDetailsJson: GET_JSON('BAUG') });
  await settle();
  return other;
}

test('another way on the proxy path with another tab\'s proxied request waiting: it is ended "call again" before the detach, and called again once attached', async () => {
  const t = setup({ unfocused: new Set([5]) });
  const [port, id] = await proxiedAtTheHost(t);
  const other = await proxiedInTab5(t);
  assert.equal(t.bridge.waitingCount(), 1, 'held for its tab');
  t.wap.calls.length = 0;
  t.bridge.anotherWay(id);
  await settle();
  assert.deepEqual(other.sent.at(-1), { kind: 'fallback', rid: 'b1', reason: 'call-again' }, 'told its call ends');
  assert.equal(t.bridge.waitingCount(), 0, 'the other tab\'s request left the queue');
  assert.deepEqual(t.wap.calls, [], 'no detach before the page says it heard');
  other.onMessage.fire({ kind: 'interrupted', rid: 'b1' });
  await settle();
  await t.proxy.settled();
  assert.deepEqual(t.wap.completed.map((c) => [c.requestId, c.error.name]), [[1, 'WebAuthnBridgeHandedBack']]);
  assert.deepEqual(t.wap.calls, ['detach'], 'the detach ends the other call');
  port.onMessage.fire({ kind: 'below-done', rid: 'p1' });
  await t.proxy.settled();
  assert.deepEqual(t.wap.calls, ['detach', 'attach']);
  assert.deepEqual(other.sent.slice(2), [{ kind: 'fallback', rid: 'b1', reason: 'proxy' }], 'told to call again once attached');
  t.wap.onGetRequest.fire({ requestId: 3, requestDetailsJson: GET_JSON('BAUG') });
  await settle();
  assert.equal(t.bridge.waitingCount(), 1, 'the new call is the other tab\'s again (announced anew), held for its tab');
});

test('an interrupted request fails as soon as the proxy will not be attached again (the user turned it off)', async () => {
  const t = setup({ unfocused: new Set([5]) });
  const [port, id] = await proxiedAtTheHost(t);
  const other = await proxiedInTab5(t);
  t.bridge.anotherWay(id);
  await settle();
  t.timers.find((timer) => timer.ms === 2000).fn();   // the page never says it heard: the detach goes on
  await settle();
  await t.proxy.settled();
  await t.proxy.update({ enabled: false });
  assert.deepEqual(other.sent.at(-1), { kind: 'error', rid: 'b1', error: { name: 'NotAllowedError', message: chromium.notAllowed } },
    'the user turned the proxy off meanwhile');
  port.onMessage.fire({ kind: 'below-done', rid: 'p1' });
  await t.proxy.settled();
  assert.equal(other.sent.filter((m) => m.reason === 'proxy').length, 1, 'never told to call again');
});

test('a proxied request waiting for its tab when the proxy detaches (Chromium aborts it) never reaches the host', async () => {
  const t = setup({ unfocused: new Set([3]) });
  const [port, frame] = topDocumentOfTab3(t);
  await t.proxy.update({ enabled: true, hostConnected: true });
  port.onMessage.fire({ kind: 'request', rid: 'g1', type: 'get', options: { challenge: { __binary__: 'AQID' } }, frame });
  await settle();
  t.wap.onGetRequest.fire({ requestId: 10, requestDetailsJson: GET_JSON() });
  await settle();
  assert.deepEqual([t.proxy.status().pending, t.bridge.waitingCount()], [1, 1], 'held for its tab');
  await t.proxy.update({ enabled: false });
  assert.deepEqual([t.proxy.status().pending, t.bridge.waitingCount()], [0, 0], 'dropped with the detach');
  assert.equal(t.native().sent.filter((f) => f.type === 'get').length, 0, 'never at the host');
});

// A listed site's call, and one too large for the host (request-size.js), go to Chromium's own the same way.
for (const [what, sites, challenge, reason] of [['a listed site', [ORIGIN], 'AQID', 'site-setting'],
  ['a request too large for the host', [], 'A'.repeat(1000 * 1000), 'too-large']]) {
  test(`${what} on the proxy path: its call is handed straight back to Chromium's own, the host never sees it`, async () => {
    const t = setup({ sites });
    const [port, frame] = topDocumentOfTab3(t);
    await t.proxy.update({ enabled: true, hostConnected: true });
    t.wap.calls.length = 0;
    port.onMessage.fire({ kind: 'request', rid: 'p1', type: 'get', options: { challenge: { __binary__: challenge } }, frame });
    await settle();
    await t.proxy.settled();
    assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'p1', reason: 'proxy' }]);
    assert.deepEqual(t.wap.calls, [], 'not attached for it: Chromium\'s own takes the call');
    const listed = [{ time: 1000, type: 'get', origin: ORIGIN, topOrigin: '', outcome: 'browser', detail: reason, reason: '' }];
    assert.deepEqual(t.history.list(), listed, 'the popup lists it as the page path does');
    // Attached meanwhile for another tab's request: Chromium proxies the call, which is handed straight back.
    await t.proxy.announce({ type: 'get', origin: ORIGIN, options: { challenge: { __binary__: 'BAUG' } }, tabId: 5, frameId: 0 });
    const atHost = t.native().sent.length;
    t.wap.onGetRequest.fire({ requestId: 2, requestDetailsJson: GET_JSON(challenge) });
    await settle();
    await t.proxy.settled();
    assert.equal(t.native().sent.length, atHost, 'nothing reached the host');
    assert.deepEqual(t.wap.completed, [{ type: 'get', requestId: 2, error: { name: 'WebAuthnBridgeHandedBack', message: '' } }]);
    assert.deepEqual(t.wap.calls, ['attach', 'detach']);
    assert.deepEqual(port.sent.at(-1), { kind: 'fallback', rid: 'p1', reason: 'another-way' });
    port.onMessage.fire({ kind: 'below-done', rid: 'p1' });
    await t.proxy.settled();
    assert.deepEqual(t.wap.calls, ['attach', 'detach', 'attach'], 'attached again for the other tab\'s call');
    assert.deepEqual(t.history.list(), listed, 'listed once: the hand-back is not a second end');
  });
}

test('a proxied request no page announced (an about:blank frame\'s) cannot be handed back: the window does not offer it', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.wap.onGetRequest.fire({ requestId: 4, requestDetailsJson: GET_JSON() });
  await settle();
  const id = t.native().sent.at(-1).id;
  t.bridge.anotherWay(id);
  assert.notDeepEqual(t.native().sent.at(-1), { id, type: 'cancel' });
  assert.deepEqual(t.wap.completed, []);
  assert.equal(t.proxy.status().pending, 1);
});

test('isUserVerifyingPlatformAuthenticatorAvailable is answered false: no platform authenticator here', async () => {
  const t = setup();
  t.wap.onIsUvpaaRequest.fire({ requestId: 12 });
  await settle();
  assert.deepEqual(t.wap.completed, [{ type: 'uvpaa', requestId: 12, isUvpaa: false }]);
});

test('a proxied request whose frame navigates away is cancelled at the host and completed with AbortError', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  t.wap.onGetRequest.fire({ requestId: 6, requestDetailsJson: GET_JSON() });
  await settle();
  const sent = t.native().sent.at(-1);
  t.bridge.frameNavigated(7, 0, t.clock.now - 1);
  assert.equal(t.wap.completed.length, 0, 'a navigation committed before the request is not its page leaving');
  t.clock.now += 10;
  t.bridge.frameNavigated(7, 0, t.clock.now);
  await settle();
  assert.deepEqual(t.native().sent.at(-1), { id: sent.id, type: 'cancel' });
  assert.deepEqual(t.wap.completed, [{ type: 'get', requestId: 6, error: { name: 'AbortError', message: chromium.aborted } }]);
});

test('an unannounced proxied call too large for the host is refused at once: no page script could call Chromium\'s own', async () => {
  const t = setup();
  await t.proxy.update({ enabled: true, hostConnected: true });
  const atHost = t.native().sent.length;
  t.wap.onGetRequest.fire({ requestId: 6, requestDetailsJson: GET_JSON('A'.repeat(1000 * 1000)) });
  await settle();
  await t.proxy.settled();
  assert.equal(t.native().sent.length, atHost, 'nothing reached the host');
  assert.deepEqual(t.wap.completed, [{ type: 'get', requestId: 6, error: { name: 'NotAllowedError', message: chromium.notAllowed } }]);
  // Over the inbound limit the host's info says (its configuration's), far below the default.
  t.native().onMessage.fire({ id: t.native().sent[0].id, type: 'result', info: { maxInboundFrameBytes: 16384 } });
  t.wap.onGetRequest.fire({ requestId: 7, requestDetailsJson: GET_JSON('A'.repeat(20000)) });
  await settle();
  await t.proxy.settled();
  assert.equal(t.native().sent.length, atHost, 'nothing reached the host');
  assert.deepEqual(t.wap.completed.at(-1), { type: 'get', requestId: 7, error: { name: 'NotAllowedError', message: chromium.notAllowed } });
});
