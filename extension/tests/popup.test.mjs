// The toolbar popup's logic: the request history the background keeps (background/history.js, fed by the bridge
// in router.js) and what popup/view.js renders from a status answer, including hostile strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as history from '../background/history.js';
import * as router from '../background/router.js';
import * as popup from '../popup/view.js';

// ---- history.js ----

const entry = (n, fields = {}) => history.entryFor({ time: n, type: 'get', origin: `https://s${n}.example`, message: { kind: 'result' }, ...fields });

test('the history keeps the newest HISTORY_LIMIT entries, newest first, and saves after each change', () => {
  const saved = [];
  const h = history.createHistory({ save: (entries) => saved.push(entries) });
  for (let n = 1; n <= history.HISTORY_LIMIT + 5; n++) h.record(entry(n));
  const list = h.list();
  assert.equal(list.length, history.HISTORY_LIMIT);
  assert.deepEqual(list.map((e) => e.time), Array.from({ length: history.HISTORY_LIMIT }, (_, i) => history.HISTORY_LIMIT + 5 - i));
  assert.equal(saved.length, history.HISTORY_LIMIT + 5);
  assert.deepEqual(saved.at(-1), list);
  list[0].origin = 'changed';
  assert.equal(h.list()[0].origin, 'https://s25.example', 'list() hands out copies');
});

test('restored entries go behind newer ones; malformed stored entries are dropped', () => {
  const h = history.createHistory({ limit: 3 });
  h.record(entry(50));
  h.restore([entry(10), { time: 'x', type: 'get', outcome: 'ok' }, { time: 20, type: 'delete', outcome: 'ok' }, null, entry(30), entry(20)]);
  assert.deepEqual(h.list().map((e) => e.time), [50, 30, 20]);
  h.restore('not a list');
  assert.equal(h.list().length, 3);
});

test('outcomes: result, error name, page abort, the browser\'s own WebAuthn; the proxy hand-over of a request the bridge serves is not an end', () => {
  const at = { time: 1, type: 'create', origin: 'https://a.example' };
  assert.equal(history.entryFor({ ...at, message: { kind: 'result', credential: { id: 'secret' } } }).outcome, 'ok');
  assert.deepEqual(history.entryFor({ ...at, message: { kind: 'error', error: { name: 'InvalidStateError', message: 'text' } } }),
    { time: 1, type: 'create', origin: 'https://a.example', topOrigin: '', outcome: 'error', detail: 'InvalidStateError', reason: '' });
  assert.equal(history.entryFor({ ...at, message: { kind: 'aborted' } }).outcome, 'aborted');
  assert.deepEqual(history.entryFor({ ...at, message: { kind: 'fallback', reason: 'site-setting' } }),
    { time: 1, type: 'create', origin: 'https://a.example', topOrigin: '', outcome: 'browser', detail: 'site-setting', reason: '' });
  assert.equal(history.entryFor({ ...at, message: { kind: 'fallback', reason: 'proxy' } }), null);
  // Sent to Chromium's proxy path only to be handed back to Chromium's own (a listed site's): listed with that reason.
  assert.deepEqual(history.entryFor({ ...at, message: { kind: 'fallback', reason: 'proxy' }, reason: 'site-setting' }),
    { time: 1, type: 'create', origin: 'https://a.example', topOrigin: '', outcome: 'browser', detail: 'site-setting', reason: '' });
  assert.equal(history.entryFor({ ...at, message: { kind: 'capabilities' } }), null);
  // Nothing of the credential or the message text is kept.
  const kept = JSON.stringify(history.entryFor({ ...at, message: { kind: 'error', error: { name: 'NotAllowedError', message: 'PIN 1234' } } }));
  assert.equal(kept.includes('1234'), false, kept);
});

// ---- the bridge records what it answered ----

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}
function fakePort(sender) {
  const port = { sender, sent: [], onMessage: event(), onDisconnect: event() };
  port.postMessage = (m) => port.sent.push(structuredClone(m));
  return port;
}
const settle = () => new Promise((r) => setImmediate(r));
const FACTS = { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: false, policy: { get: true, create: true }, activation: false };

test('the bridge lists each request it answered with the trusted origin, never what the page claimed', async () => {
  const natives = [];
  const h = history.createHistory();
  let clock = 1000;
  const bridge = router.createBridge({
    connectNative: () => { const p = fakePort(); natives.push(p); return p; },
    disconnectError: () => '', loadSiteList: async () => [], setIndicator: () => {},
    setTimeout: () => 0, clearTimeout: () => {}, now: () => clock,
    frameTree: async () => null, isTabFocused: async () => true, history: h,
  });
  bridge.start();
  const port = fakePort({ origin: 'https://bank.example', url: 'https://bank.example/', frameId: 0, tab: { id: 1, url: 'https://bank.example/' } });
  bridge.attachFrame(port);
  const host = natives[0];
  port.onMessage.fire({ kind: 'request', rid: 'a', type: 'get', origin: 'https://evil.example', options: { challenge: { __binary__: 'AQ' } }, frame: FACTS });
  await settle();
  clock = 2000;
  host.onMessage.fire({ id: host.sent[1].id, type: 'result', credential: { id: 'x' } });
  port.onMessage.fire({ kind: 'request', rid: 'b', type: 'create', options: { challenge: { __binary__: 'AQ' } }, frame: FACTS });
  await settle();
  clock = 3000;
  host.onMessage.fire({ id: host.sent[2].id, type: 'error', error: { name: 'NotAllowedError', message: 'm' }, detail: 'PIN entry was cancelled' });
  port.onMessage.fire({ kind: 'request', rid: 'c', type: 'get', options: { challenge: { __binary__: 'AQ' } }, frame: FACTS });
  await settle();
  clock = 4000;
  port.onMessage.fire({ kind: 'cancel', rid: 'c' });
  assert.deepEqual(bridge.status().history.map((e) => [e.time, e.type, e.origin, e.outcome, e.detail, e.reason]), [
    [4000, 'get', 'https://bank.example', 'aborted', '', ''],
    [3000, 'create', 'https://bank.example', 'error', 'NotAllowedError', 'PIN entry was cancelled'],
    [2000, 'get', 'https://bank.example', 'ok', '', ''],
  ]);
  // The reason is the user's: the page got the error name and the host's generic message only.
  assert.equal(JSON.stringify(port.sent).includes('PIN entry'), false, JSON.stringify(port.sent));
});

test('refresh: the bridge asks the host for info again and answers with it; a lost host answers null', async () => {
  const natives = [];
  const timers = [];
  const bridge = router.createBridge({
    connectNative: () => { const p = fakePort(); natives.push(p); return p; },
    disconnectError: () => 'Native host has exited.', loadSiteList: async () => [], setIndicator: () => {},
    setTimeout: (fn, ms) => timers.push({ fn, ms }), clearTimeout: () => {}, now: () => 0,
    frameTree: async () => null, isTabFocused: async () => true,
  });
  bridge.start();
  const host = natives[0];
  host.onMessage.fire({ id: 'bg-info-1', type: 'result', info: { version: '1', devices: [] } });
  const fresh = bridge.refreshInfo();
  assert.deepEqual(host.sent.at(-1), { id: 'bg-info-2', type: 'info' });
  host.onMessage.fire({ id: 'bg-info-2', type: 'result', info: { version: '1', devices: [{ product: 'Key' }] } });
  assert.deepEqual((await fresh).devices, [{ product: 'Key' }]);
  assert.deepEqual(bridge.status().info.devices, [{ product: 'Key' }]);
  const lost = bridge.refreshInfo();
  host.onDisconnect.fire();
  assert.equal(await lost, null);
  // A host that never answers: the wait ends with the info the bridge has.
  const silent = bridge.refreshInfo();
  timers.filter((t) => t.ms === 5000).forEach((t) => t.fn());
  assert.deepEqual((await silent).devices, [{ product: 'Key' }]);
});

// ---- popup/view.js rendering, in a small stand-in DOM that has no HTML parser at all ----

class Element {
  constructor(tag) { this.tagName = tag; this.children = []; this.dataset = {}; this.className = ''; this.ownText = ''; }
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren(...nodes) { this.children = nodes; this.ownText = ''; }
  set textContent(value) { this.children = []; this.ownText = String(value); }
  get textContent() { return this.ownText + this.children.map((c) => c.textContent).join(''); }
  set innerHTML(_) { throw new Error('innerHTML used'); }
  insertAdjacentHTML() { throw new Error('insertAdjacentHTML used'); }
  all() { return [this, ...this.children.flatMap((c) => c.all())]; }
}
function popupDocument() {
  const byId = Object.fromEntries(['mark', 'state', 'host', 'keys', 'requests'].map((id) => [id, new Element(id === 'mark' ? 'img' : 'div')]));
  return { byId, createElement: (tag) => new Element(tag), getElementById: (id) => byId[id] };
}
const INFO = { version: '0.1.0', libfido2: '1.12.0', devices: [
  { path: '/dev/hidraw3', product: 'YubiKey 5 NFC', manufacturer: 'Yubico', vendorId: 0x1050, productId: 0x0407, kind: 'security key' },
] };

test('a connected host: version, each key with what it is, each request with site, outcome and time', () => {
  const doc = popupDocument();
  const time = new Date(2026, 0, 2, 9, 5, 7).getTime();
  popup.render(doc, { state: 'connected', info: INFO, history: [
    { time, type: 'create', origin: 'https://idp.example', topOrigin: 'https://shop.example', outcome: 'error', detail: 'InvalidStateError' },
    { time, type: 'get', origin: 'https://bank.example:8443', topOrigin: '', outcome: 'ok', detail: '' },
  ] });
  assert.equal(doc.byId.state.dataset.state, 'connected');
  assert.equal(doc.byId.state.textContent, 'On');
  assert.equal(doc.byId.host.textContent, 'Host 0.1.0 · libfido2 1.12.0');
  assert.equal(doc.byId.mark.src, '../icons/icon-32.png');
  assert.equal(doc.byId.keys.textContent, 'YubiKey 5 NFCsecurity key · Yubico · USB 1050:0407 · /dev/hidraw3');
  const rows = doc.byId.requests.children.map((li) => li.textContent);
  assert.deepEqual(rows, [
    'Register · idp.example in shop.example09:05:07This key is registered already (InvalidStateError)',
    'Sign in · bank.example:844309:05:07Signed in',
  ]);
  assert.deepEqual(doc.byId.requests.children.map((li) => li.all().find((e) => e.dataset.outcome).dataset.outcome), ['error', 'ok']);
});

test('a key a ceremony has used shows the host\'s capability line under its name; one not yet used shows none', () => {
  const doc = popupDocument();
  const line = 'CTAP 2.1, passkeys, PIN set, PRF, largeBlob, ES256/EdDSA';
  const used = { ...INFO.devices[0], capabilities: line };
  const fresh = { path: '/dev/hidraw4', product: 'Solo 2', kind: 'security key' };
  popup.render(doc, { state: 'connected', info: { ...INFO, devices: [used, fresh] }, history: [] });
  const [first, second] = doc.byId.keys.children;
  assert.deepEqual(first.all().filter((e) => e.className === 'note').map((e) => e.textContent), [line]);
  assert.equal(first.textContent, `YubiKey 5 NFCsecurity key · Yubico · USB 1050:0407 · /dev/hidraw3${line}`);
  assert.equal(second.all().some((e) => e.className === 'note'), false, 'no empty line for a key not yet used');
  assert.deepEqual(popup.keyLines(used), { primary: 'YubiKey 5 NFC', secondary: 'security key · Yubico · USB 1050:0407 · /dev/hidraw3', capabilities: line });
  assert.equal(popup.keyLines({ ...fresh, capabilities: ['x'] }).capabilities, '', 'only text is shown');
});

test('hostile strings from a key or a stored entry stay text: no element is made from them', () => {
  const doc = popupDocument();
  const evil = '<img src=x onerror="alert(1)">';
  popup.render(doc, { state: 'connected', info: { version: evil, devices: [{ product: evil, manufacturer: evil, kind: evil, capabilities: evil }] },
    history: [{ time: 0, type: 'get', origin: evil, topOrigin: evil, outcome: 'error', detail: evil }] });
  const tags = [doc.byId.keys, doc.byId.requests, doc.byId.host].flatMap((el) => el.all()).map((e) => e.tagName);
  assert.equal(tags.includes('img'), false, tags.join());
  assert.ok(doc.byId.keys.textContent.startsWith(evil));
  assert.ok(doc.byId.keys.textContent.endsWith(evil), 'the capability line too');
  assert.ok(doc.byId.requests.textContent.includes(`Sign in · ${evil} in ${evil}`));
  assert.ok(doc.byId.host.textContent.includes(evil));
});

test('host unavailable or connecting: the reason in words, the grey mark, no keys; empty lists say so', () => {
  const doc = popupDocument();
  popup.render(doc, { state: 'unavailable', reason: 'host-missing', detail: 'Specified native messaging host not found.', info: null, history: [] });
  assert.equal(doc.byId.state.textContent, 'Off');
  assert.equal(doc.byId.mark.src, '../icons/icon-off-32.png');
  assert.match(doc.byId.host.textContent, /^Not serving: the native host webauthn_bridge is not installed/);
  assert.equal(doc.byId.keys.textContent, 'Unknown while the host is not connected.');
  assert.equal(doc.byId.requests.textContent, 'None since the browser started.');
  popup.render(doc, { state: 'unavailable', reason: 'odd', detail: 'Browser said this.', info: null });
  assert.match(doc.byId.host.textContent, /^Not serving: Browser said this\./);
  popup.render(doc, { state: 'connected', info: { version: '1', devices: [] }, history: [] });
  assert.equal(doc.byId.keys.textContent, 'None plugged in.');
  popup.render(doc, undefined);
  assert.equal(doc.byId.state.dataset.state, 'connecting');
});

test('outcome words for each ending, and the browser\'s own WebAuthn with its reason', () => {
  assert.deepEqual(popup.outcomeText({ type: 'create', outcome: 'ok' }), { text: 'Registered', tone: 'ok' });
  assert.deepEqual(popup.outcomeText({ type: 'get', outcome: 'aborted' }), { text: 'Aborted by the site', tone: 'other' });
  assert.equal(popup.outcomeText({ type: 'get', outcome: 'error', detail: 'SomeNewError' }).text, 'Failed (SomeNewError)');
  // The bridge's own reason, when it has one, says more than the error name.
  assert.equal(popup.outcomeText({ type: 'get', outcome: 'error', detail: 'NotAllowedError', reason: 'PIN entry was cancelled.' }).text,
    'PIN entry was cancelled (NotAllowedError)');
  assert.equal(popup.outcomeText({ type: 'get', outcome: 'error', detail: 'NotAllowedError' }).text,
    'Cancelled, timed out or not allowed (NotAllowedError)');
  assert.equal(popup.outcomeText({ type: 'get', outcome: 'browser', detail: 'site-setting' }).text,
    "Left to the browser's own WebAuthn: the site is listed in the options");
  assert.equal(popup.siteText({ origin: '' }), 'an unknown site');
  assert.equal(popup.timeText('x'), '');
});
