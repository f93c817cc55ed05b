// content/relay.js with a fake window and runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');
const relayModule = require('../content/relay.js');
const { createRelay } = relayModule;

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), fire: (...a) => listeners.forEach((fn) => fn(...a)) };
}

function setup() {
  const ports = [];
  const win = {
    location: { origin: 'https://example.com' },
    toPage: [],
    postMessage(data, target) { win.toPage.push({ data: structuredClone(data), target }); },
    addEventListener() {},
  };
  const runtime = {
    connect({ name }) {
      const port = { name, sent: [], onMessage: event(), onDisconnect: event() };
      port.postMessage = (m) => port.sent.push(structuredClone(m));
      ports.push(port);
      return port;
    },
  };
  const relay = createRelay({ win, runtime });
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
  assert.equal(t.ports[0].name, 'webauthn-bridge');
  assert.deepEqual(t.ports[0].sent[0], { kind: 'request', rid: 'A', type: 'get', options: { challenge: { __binary__: 'AQ' } } });
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
  assert.equal(parse(null), null);
});
