// content/relay.js with a fake window and runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as rules from '../common/relay-shared.js';
import { LIMITS } from '../common/protocol.js';
import { PORT_NAME } from '../background/router.js';

// relay.js and page/codec.js are classic scripts (content scripts cannot be modules): CommonJS to node. relay.js
// reads the frame rules and message checks from the global, where importing common/relay-shared.js put them.
const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');
const relayModule = require('../content/relay.js');
const { createRelay } = relayModule;

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}

/**
 * A window as the isolated world sees it. origin: window.origin ("null" when sandboxed, while location keeps
 * the URL's origin); parent: the parent window (itself at the top); policy: document.featurePolicy (Chromium)
 * or none (Firefox); active: navigator.userActivation.isActive.
 */
function fakeWindow({ origin = 'https://example.com', urlOrigin = origin, parent = null, policy = { get: true, create: true }, active = false, ancestorOrigins = [], frameElement = null } = {}) {
  const listeners = {};
  const win = {
    origin,
    isSecureContext: true,
    location: { origin: urlOrigin, ancestorOrigins },
    navigator: { userActivation: { isActive: active } },
    document: policy ? { featurePolicy: fakePolicy(policy) } : {},
    frameElement,
    toPage: [],
    postMessage(data, target) { win.toPage.push({ data: structuredClone(data), target }); },
    addEventListener(type, listener) { (listeners[type] ||= []).push(listener); },
    dispatch(type, event) { for (const listener of listeners[type] || []) listener(event); },
  };
  win.parent = parent || win;
  return win;
}
function fakePolicy(allowed) {
  return {
    features: () => ['camera', 'publickey-credentials-get', 'publickey-credentials-create'],
    allowsFeature: (f) => (f === 'publickey-credentials-get' ? allowed.get : f === 'publickey-credentials-create' ? allowed.create : true),
  };
}
/** Another origin's window, as a parent: reading its origin throws, as cross-origin access does. */
function crossOriginWindow(parent = null) {
  const w = { get origin() { throw new DOMException('Blocked a frame', 'SecurityError'); } };
  w.parent = parent || w;
  return w;
}

function setup(windowOptions) {
  const ports = [];
  const win = fakeWindow(windowOptions);
  const runtime = {
    connect({ name }) {
      const port = { name, sent: [], onMessage: event(), onDisconnect: event() };
      port.postMessage = (m) => port.sent.push(structuredClone(m));
      ports.push(port);
      return port;
    },
  };
  const relay = createRelay({ win, runtime, rules });
  const fromPage = (message, source = win) => {
    let stopped = false;
    relay.onWindowMessage({ source, data: { channel: codec.CHANNEL, dir: 'to-relay', ...message }, stopImmediatePropagation() { stopped = true; } });
    return stopped;
  };
  const background = (message) => ports.at(-1).onMessage.fire(message);
  return { win, ports, relay, fromPage, background };
}
const request = { kind: 'request', rid: 'A', type: 'get', options: { challenge: { __binary__: 'AQ' } } };

test('no port until the first request; then one port per document', () => {
  const t = setup();
  assert.equal(t.ports.length, 0);
  assert.equal(t.fromPage(request), true);
  t.background({ kind: 'result', rid: 'A', credential: {} });
  t.fromPage({ ...request, rid: 'B' });
  assert.equal(t.ports.length, 1);
  assert.equal(t.ports[0].name, PORT_NAME, 'the name the background takes frame ports by');
  assert.deepEqual(t.ports[0].sent[0], {
    kind: 'request', rid: 'A', type: 'get', options: { challenge: { __binary__: 'AQ' } },
    frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: false, policy: { get: true, create: true }, activation: false, embedderAllow: null, lastInput: null },
  });
});

test('a conditional request says so to the background; no other mediation is passed on', () => {
  const t = setup();
  t.fromPage({ ...request, mediation: 'conditional' });
  t.fromPage({ ...request, rid: 'B', mediation: 'silent' });
  assert.equal(t.ports[0].sent[0].mediation, 'conditional');
  assert.equal('mediation' in t.ports[0].sent[1], false);
});

/** An iframe element as the frame's isolated world reads it (Firefox: through an Xray wrapper). */
function iframeElement(allow) {
  const element = { attributes: { allow }, getAttribute: (name) => element.attributes[name] ?? null };
  return element;
}

test('Firefox: a same-origin frame whose embedder\'s allow= names WebAuthn goes to Firefox\'s own, even if the attribute goes later', () => {
  const top = fakeWindow({ policy: null });
  const element = iframeElement("publickey-credentials-get 'none'; publickey-credentials-create 'none'");
  const t = setup({ policy: null, parent: top, frameElement: element });
  delete element.attributes.allow; // the frame's own script edits its embedder's DOM: too late, read at start
  t.fromPage(request);
  assert.deepEqual(t.win.toPage.map((m) => [m.data.kind, m.data.reason]), [['fallback', 'embedder-policy']]);
  assert.equal(t.ports.length, 0, 'nothing reaches the background');
  // A frame inside such a frame inherits its policy: found on the way up.
  const middle = fakeWindow({ policy: null, parent: top, frameElement: iframeElement('publickey-credentials-create *') });
  const inner = setup({ policy: null, parent: middle, frameElement: iframeElement('') });
  inner.fromPage(request);
  assert.deepEqual(inner.win.toPage.map((m) => m.data.reason), ['embedder-policy']);
  // No allow= naming WebAuthn: served by the bridge, as before.
  const plain = setup({ policy: null, parent: top, frameElement: iframeElement('camera *') });
  plain.fromPage(request);
  assert.equal(plain.ports[0].sent[0].frame.embedderAllow, false);
  // Chromium reads the policy itself: the attribute is not consulted.
  const chromium = setup({ parent: fakeWindow(), frameElement: iframeElement("publickey-credentials-get 'none'") });
  chromium.fromPage(request);
  assert.equal(chromium.ports[0].sent[0].frame.embedderAllow, null);
});

test('the last trusted press in the document goes with a request; script-made and repeated keys do not count', () => {
  const t = setup();
  t.win.dispatch('pointerdown', { isTrusted: false });
  t.win.dispatch('keydown', { isTrusted: true, repeat: true });
  t.fromPage(request);
  assert.equal(t.ports[0].sent[0].frame.lastInput, null);
  const before = Date.now();
  t.win.dispatch('pointerdown', { isTrusted: true });
  t.fromPage({ ...request, rid: 'B' });
  assert.ok(t.ports[0].sent[1].frame.lastInput >= before);
});

test('messages from other windows, without the tag, or in the wrong direction are ignored', () => {
  const t = setup();
  t.fromPage(request, { other: true });
  t.relay.onWindowMessage({ source: t.win, data: { ...request, dir: 'to-relay' }, stopImmediatePropagation() {} });
  t.fromPage({ ...request, dir: 'to-page' });
  t.fromPage({ kind: 'select', rid: 'A', index: 0 }); // only the security-key window may choose an account
  assert.equal(t.ports.length, 0);
});

test('results, errors and fallbacks go back to this window only, targeted at its origin', () => {
  const t = setup();
  t.fromPage(request);
  t.background({ kind: 'result', rid: 'A', credential: { id: 'x' } });
  assert.deepEqual(t.win.toPage, [{ data: { channel: codec.CHANNEL, dir: 'to-page', kind: 'result', rid: 'A', credential: { id: 'x' } }, target: 'https://example.com' }]);
  t.fromPage({ ...request, rid: 'B' });
  t.background({ kind: 'error', rid: 'B', error: { name: 'NotAllowedError', message: 'no' } });
  assert.deepEqual(t.win.toPage.at(-1).data.error, { name: 'NotAllowedError', message: 'no' });
  t.fromPage({ ...request, rid: 'C' });
  t.background({ kind: 'fallback', rid: 'C', reason: 'host-missing' });
  assert.equal(t.win.toPage.at(-1).data.kind, 'fallback');
  t.background({ kind: 'result', rid: 'C', credential: {} }); // settled already
  assert.equal(t.win.toPage.length, 3);
});

test('a status frame sent to the relay goes nowhere: not to the page, not back as a choice', () => {
  const t = setup();
  t.fromPage(request);
  const accounts = [{ name: 'a', displayName: 'A', id: { __binary__: 'AQ' } }];
  t.background({ kind: 'status', rid: 'A', status: 'pin', detail: 'Enter your PIN' });
  t.background({ kind: 'status', rid: 'A', status: 'select-account', accounts });
  assert.equal(t.win.toPage.length, 0);
  assert.deepEqual(t.ports[0].sent.map((m) => m.kind), ['request'], 'no select from the content script');
  assert.equal(t.relay.openCount(), 1, 'the request still waits for its answer');
});

test('a request sent through Chromium\'s proxy path can be handed back once; only then does its below-done reach the background', () => {
  const t = setup();
  t.fromPage(request);
  t.fromPage({ kind: 'below-done', rid: 'A' });
  t.background({ kind: 'fallback', rid: 'A', reason: 'proxy' });
  t.fromPage({ kind: 'below-done', rid: 'A' });
  assert.deepEqual(t.ports[0].sent.map((m) => m.kind), ['request'], 'no below-done before a hand-back');
  t.background({ kind: 'fallback', rid: 'A', reason: 'another-way' });
  assert.deepEqual(t.win.toPage.map((m) => m.data.reason), ['proxy', 'another-way']);
  t.background({ kind: 'fallback', rid: 'A', reason: 'another-way' });
  assert.equal(t.win.toPage.length, 2, 'once');
  t.fromPage({ kind: 'below-done', rid: 'A' });
  t.fromPage({ kind: 'below-done', rid: 'A' });
  assert.deepEqual(t.ports[0].sent.slice(1), [{ kind: 'below-done', rid: 'A' }], 'once, for the request handed back');
  // Only the last 16 proxied requests of a document are remembered.
  for (let i = 0; i < 17; i++) {
    t.fromPage({ ...request, rid: `P${i}` });
    t.background({ kind: 'fallback', rid: `P${i}`, reason: 'proxy' });
  }
  t.background({ kind: 'fallback', rid: 'P0', reason: 'another-way' });
  t.background({ kind: 'fallback', rid: 'P16', reason: 'another-way' });
  assert.deepEqual(t.win.toPage.slice(-2).map((m) => [m.data.rid, m.data.reason]), [['P16', 'proxy'], ['P16', 'another-way']]);
});

test('the page aborting forwards cancel', () => {
  const t = setup();
  t.fromPage(request);
  t.fromPage({ kind: 'cancel', rid: 'A' });
  assert.deepEqual(t.ports[0].sent.at(-1), { kind: 'cancel', rid: 'A' });
  assert.equal(t.relay.openCount(), 0);
});

test('losing the background settles every open request with NotAllowedError', () => {
  const t = setup();
  t.fromPage(request);
  t.ports[0].onDisconnect.fire();
  assert.deepEqual(t.win.toPage.at(-1).data.error, { name: 'NotAllowedError', message: 'The webauthn-bridge extension stopped.' });
  t.fromPage({ ...request, rid: 'B' });
  assert.equal(t.ports.length, 2, 'a new port for the next request');
});

test('the relay and the page speak on the same channel tag', () => {
  assert.equal(relayModule.CHANNEL, codec.CHANNEL);
});

test('page messages are shape-checked; select is never accepted from the page', () => {
  const C = codec.CHANNEL;
  const parse = relayModule.parsePageMessage;
  assert.ok(parse({ channel: C, dir: 'to-relay', kind: 'request', rid: 'a', type: 'get', options: {} }));
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'request', rid: 'a', type: 'store', options: {} }), null);
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'request', rid: 'a', type: 'get', options: [] }), null);
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'select', rid: 'a', index: 0 }), null);
  assert.equal(parse({ channel: C, dir: 'to-page', kind: 'cancel', rid: 'a' }), null);
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'cancel', rid: '' }), null);
  // The host's rule for an id (common/protocol.js isRequestId): at most LIMITS.requestIdBytes UTF-8 bytes.
  const limit = LIMITS.requestIdBytes;
  assert.ok(parse({ channel: C, dir: 'to-relay', kind: 'cancel', rid: 'x'.repeat(limit) }));
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'cancel', rid: 'x'.repeat(limit + 1) }), null);
  assert.equal(parse({ channel: C, dir: 'to-relay', kind: 'cancel', rid: 'é'.repeat(limit / 2 + 1) }), null);
  assert.equal(parse(null), null);
});

// ---- the frame rules, applied in the isolated world (the page can post this format directly) ----

const OPAQUE = { name: 'NotAllowedError', message: "The current origin is an opaque origin and hence not allowed to access 'PublicKeyCredential' objects." };

test('a CSP-sandboxed document is refused at once, and the answer reaches its opaque window', () => {
  const t = setup({ origin: 'null', urlOrigin: 'https://victim.example' });
  t.fromPage(request);
  assert.equal(t.ports.length, 0, 'nothing goes to the background');
  assert.deepEqual(t.win.toPage, [{ data: { channel: codec.CHANNEL, dir: 'to-page', kind: 'error', rid: 'A', error: OPAQUE }, target: '*' }],
    "targeted at '*': a message targeted at the URL's origin is dropped by an opaque window, and get() never settled");
});

test('a sandboxed iframe is refused by its permissions policy first, as Chromium orders it', () => {
  const parent = fakeWindow();
  const t = setup({ origin: 'null', urlOrigin: 'https://example.com', parent, policy: { get: false, create: false }, ancestorOrigins: ['https://example.com'] });
  t.fromPage(request);
  assert.deepEqual(t.win.toPage[0].data.error, rules.REFUSALS.policy('get'));
  assert.equal(t.ports.length, 0);
});

test('a cross-origin frame without allow= is refused whatever its page world did; Firefox hands it to Firefox', () => {
  const chromium = setup({ origin: 'https://evil.example', parent: crossOriginWindow(), policy: { get: false, create: false }, active: true });
  chromium.fromPage(request);
  chromium.fromPage({ ...request, rid: 'B', type: 'create' });
  assert.deepEqual(chromium.win.toPage.map((m) => m.data.error), [rules.REFUSALS.policy('get'), rules.REFUSALS.policy('create')]);
  assert.equal(chromium.ports.length, 0);
  const firefox = setup({ origin: 'https://evil.example', parent: crossOriginWindow(), policy: null, active: true });
  firefox.fromPage(request);
  assert.deepEqual(firefox.win.toPage[0].data, { channel: codec.CHANNEL, dir: 'to-page', kind: 'fallback', rid: 'A', reason: 'cross-origin-frame' });
  assert.equal(firefox.ports.length, 0);
});

test('create in an allowed cross-origin frame needs transient activation, read in this world', () => {
  const idle = setup({ origin: 'https://idp.example', parent: crossOriginWindow() });
  idle.fromPage({ ...request, type: 'create' });
  assert.equal(idle.win.toPage[0].data.error.message, 'A user activation is required to create a credential in a cross-origin iframe.');
  const clicked = setup({ origin: 'https://idp.example', parent: crossOriginWindow(), active: true });
  clicked.fromPage({ ...request, type: 'create' });
  assert.equal(clicked.ports[0].sent[0].frame.sameOriginWithAncestors, false);
  assert.equal(clicked.ports[0].sent[0].frame.activation, true);
});

test('same-origin with all ancestors is walked through every parent: A→B→A is cross-origin', () => {
  const top = fakeWindow({ origin: 'https://a.example' });
  const middle = crossOriginWindow(top);
  const inner = fakeWindow({ origin: 'https://a.example', parent: middle });
  assert.equal(relayModule.documentFacts(inner, null).sameOriginWithAncestors, false);
  const sameChain = fakeWindow({ origin: 'https://a.example', parent: fakeWindow({ origin: 'https://a.example', parent: top }) });
  assert.equal(relayModule.documentFacts(sameChain, null).sameOriginWithAncestors, true);
  const opaqueChild = fakeWindow({ origin: 'null', parent: fakeWindow({ origin: 'null' }) });
  assert.equal(relayModule.documentFacts(opaqueChild, null).sameOriginWithAncestors, false, 'opaque is same-origin with nothing');
});

test('a frame under an opaque top-level document is refused', () => {
  const t = setup({ origin: 'https://victim.example', parent: crossOriginWindow(), ancestorOrigins: ['null'] });
  t.fromPage(request);
  assert.deepEqual(t.win.toPage[0].data.error, OPAQUE);
});

test('a page posting key-management frames to the relay reaches nothing: no port, no message to the background', () => {
  // An attacker's page skipping the page world: every key request type as a kind, as a request type, with the
  // fields the Security keys page sends and forged ones beside them.
  const t = setup();
  const forged = { device: '/dev/hidraw0', credentialId: 'AAEC', userId: 'dXNlcg', name: 'x', origin: 'chrome-extension://x',
    sender: { url: 'moz-extension://x/keys/keys.html' } };
  for (const type of ['manage', 'key-info', 'passkeys', 'passkey-delete', 'passkey-rename']) {
    assert.equal(t.fromPage({ ...forged, kind: type, rid: `k-${type}` }), false);
    assert.equal(t.fromPage({ ...forged, kind: 'request', rid: `r-${type}`, type, options: {} }), false);
  }
  assert.equal(t.ports.length, 0);
});
