// page/tripwire.js, and page/interceptor.js beside a wrapper that ran first: the wrapper gets each modal request
// first, and the bridge serves it only once the wrapper handed it on to the browser's own. The browser's reading of
// its argument is page/webidl.js's conversion, which reads as both browsers do (measured: docs/measurements.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { assertionFrame, createOptions, fakeWindow, getOptions, tick, webidl, wrapperLike } from './fake-window.mjs';

const require = createRequire(import.meta.url);
const tripwire = require('../page/tripwire.js');

const OPS = { create: createOptions, get: getOptions };

/** Armed options for `op`'s request as `browser` reads it, with what the trip does. */
function armedFor(op, browser, extra = {}) {
  const converted = webidl.convertOptions(op, { ...OPS[op](), ...extra }, browser);
  const error = new Error('handed on');
  const trips = [];
  const wire = tripwire.armed(converted, webidl.publicKeyMembers(op, browser), error, () => trips.push(op), queueMicrotask);
  return { converted, error, trips, wire };
}

for (const browser of ['chromium', 'firefox']) {
  for (const op of ['create', 'get']) {
    test(`${browser} ${op}: the browser's own conversion trips it, rejecting with the private error, once`, async () => {
      const { error, trips, wire } = armedFor(op, browser);
      assert.throws(() => webidl.convertOptions(op, wire.options, browser), (thrown) => thrown === error);
      assert.equal(wire.tripped(), true);
      assert.deepEqual(trips, [], 'the bridge is told after the browser\'s own returned, not from inside its conversion');
      await tick();
      assert.deepEqual(trips, [op]);
      assert.throws(() => webidl.convertOptions(op, wire.options, browser), (thrown) => thrown === error, 'every run throws');
      await tick();
      assert.deepEqual(trips, [op], 'the bridge is told once');
    });
  }
}

test('the options read as the converted request: every member, the page\'s own signal, nothing more', () => {
  const signal = new AbortController().signal;
  const { converted, wire } = armedFor('get', 'chromium', { mediation: 'required', signal });
  const { options } = wire;
  assert.equal(options.signal, signal);
  assert.equal(options.mediation, 'required');
  assert.equal(options.publicKey.challenge, converted.publicKey.challenge, 'the same BufferSource');
  assert.equal(options.publicKey.rpId, 'example.com');
  assert.equal(options.publicKey.timeout, undefined);
  assert.deepEqual(Object.keys(options.publicKey), ['rpId', 'challenge'], 'present members, not in the browser\'s order');
  assert.equal(wire.tripped(), false);
});

test('a password manager\'s own reads (Bitwarden\'s order), twice over, do not trip it', async () => {
  for (const [op, names] of [['get', ['allowCredentials', 'challenge', 'rpId', 'userVerification', 'timeout']],
    ['create', ['attestation', 'authenticatorSelection', 'authenticatorSelection', 'challenge', 'excludeCredentials',
      'extensions', 'pubKeyCredParams', 'rp', 'rp', 'user', 'user', 'timeout']]]) {
    const { wire } = armedFor(op, 'chromium');
    for (let pass = 0; pass < 2; pass++) for (const name of names) void wire.options.publicKey[name];
    assert.equal(wire.tripped(), false, op);
  }
});

test('copies (spread, structuredClone, JSON, a key walk) do not trip it, and the browser\'s own serves the copy', () => {
  for (const copy of [(o) => ({ ...o, publicKey: { ...o.publicKey } }), (o) => structuredClone(o),
    (o) => ({ publicKey: JSON.parse(JSON.stringify(o.publicKey)) }),
    (o) => ({ publicKey: Object.fromEntries(Object.entries(o.publicKey)) })]) {
    const { wire } = armedFor('create', 'firefox');
    const copied = copy(wire.options);
    assert.equal(wire.tripped(), false);
    try { webidl.convertOptions('create', copied, 'firefox'); } catch (_) { /* a JSON copy has no BufferSource */ }
    assert.equal(wire.tripped(), false);
  }
});

test('a complete run spread over turns is a wrapper\'s, not the browser\'s: no trip', async () => {
  const { wire } = armedFor('get', 'firefox');
  for (const name of webidl.publicKeyMembers('get', 'firefox')) {
    void wire.options.publicKey[name];
    await tick();
  }
  assert.equal(wire.tripped(), false);
});

test('only a wrapper whose source the page reads is offered requests first', () => {
  assert.equal(tripwire.readableWrapper(function get(options) { return options; }), true);
  assert.equal(tripwire.readableWrapper(async (options) => options), true);
  assert.equal(tripwire.readableWrapper(Array.prototype.push), false, 'the browser\'s own, or an exported function');
  assert.equal(tripwire.readableWrapper((() => 1).bind(null)), false, 'a bound copy');
  assert.equal(tripwire.readableWrapper(undefined), false);
});

// ---- The interceptor beside a wrapper that ran first ----------------------------------------------------------------

const firstWrapper = (options = {}) => {
  const held = {};
  const win = fakeWindow({ converting: true, ...options, beforeBridge: (w) => { held.served = wrapperLike(w, 'manager.example'); } });
  return { win, c: win.navigator.credentials, served: held.served };
};
const managerGet = (extra = {}) => ({ publicKey: { challenge: new Uint8Array(1), rpId: 'manager.example' }, ...extra });

test('its own site: the wrapper serves it, its answer reaches the page as it is, nothing reaches the relay', async () => {
  for (const browser of ['chromium', 'firefox']) {
    const { win, c, served } = firstWrapper({ browser });
    assert.equal(c.get.__webauthnBridge, true, 'the bridge is on top');
    assert.equal(await c.get(managerGet()), 'manager-get');
    assert.equal(await c.create({ publicKey: { ...createOptions().publicKey, rp: { id: 'manager.example', name: 'm' } } }),
      'manager-create');
    assert.deepEqual(served, [['get', undefined], ['create', undefined]]);
    assert.equal(win.posted.length, 0);
    assert.equal(win.nativeCalls.length, 0);
  }
});

test('another site: handed on by the wrapper, served by the bridge, never by the browser\'s own', async () => {
  for (const browser of ['chromium', 'firefox']) {
    const { win, c } = firstWrapper({ browser });
    const promise = c.get(getOptions());
    assert.equal(win.posted.length, 0, 'the wrapper has it first');
    await tick();
    assert.equal(win.posted.length, 1);
    assert.equal(win.posted[0].data.kind, 'request');
    assert.deepEqual(win.posted[0].data.options, { challenge: { __binary__: 'AQID' }, rpId: 'example.com' });
    win.reply(win.posted[0].data.rid, { kind: 'result', credential: assertionFrame });
    assert.equal((await promise).id, 'AQI');
    assert.equal(win.nativeCalls.length, 0, 'the browser\'s own rejected at the tripwire, before anything');
  }
});

test('a wrapper that wraps the browser\'s rejection in an error of its own: the bridge still serves', async () => {
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    const creds = w.navigator.credentials;
    const found = creds.get.bind(creds);
    creds.get = async function get(options) {
      try { return await found(options); } catch (error) { throw new Error(`manager: ${error.message}`); }
    };
  } });
  const promise = win.navigator.credentials.get(getOptions());
  await tick();
  assert.equal(win.posted.length, 1);
  win.reply(win.posted[0].data.rid, { kind: 'result', credential: assertionFrame });
  assert.equal((await promise).id, 'AQI');
});

test('a wrapper that calls the browser\'s own again once it rejected (a retry): the bridge serves, the browser\'s own never', async () => {
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    const creds = w.navigator.credentials;
    const found = creds.get.bind(creds);
    creds.get = function get(options) { return found(options).catch(() => found(options)); };
  } });
  const promise = win.navigator.credentials.get(getOptions());
  await tick();
  assert.equal(win.posted.length, 1);
  win.reply(win.posted[0].data.rid, { kind: 'result', credential: assertionFrame });
  assert.equal((await promise).id, 'AQI');
  assert.equal(win.nativeCalls.length, 0, 'not served twice');
});

test('after the wrapper handed it on, "another way" goes to the browser\'s own, not back to the wrapper', async () => {
  const { win, c, served } = firstWrapper();
  const promise = c.get(getOptions());
  await tick();
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  assert.equal(await promise, 'native-get');
  assert.equal(win.nativeCalls.length, 1);
  assert.deepEqual(served, [], 'the wrapper saw it once, and declined');
});

test('the page\'s signal ends the request while the wrapper holds it; nothing reaches the relay', async () => {
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    w.navigator.credentials.get = function get() { return new Promise(() => {}); };
  } });
  const controller = new AbortController();
  const promise = win.navigator.credentials.get({ ...getOptions(), signal: controller.signal });
  await tick();
  controller.abort(new DOMException('page gave up', 'AbortError'));
  await assert.rejects(promise, (e) => e.message === 'page gave up');
  assert.equal(win.posted.length, 0);
});

test('the bridge gets what is left of the page\'s timeout once the wrapper hands it on', async () => {
  let handOn;
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    const creds = w.navigator.credentials;
    const found = creds.get.bind(creds);
    creds.get = function get(options) { return new Promise((resolve) => { handOn = () => resolve(found(options)); }); };
  } });
  const promise = win.navigator.credentials.get({ publicKey: { ...getOptions().publicKey, timeout: 60000 } });
  win.now += 4000;   // the wrapper's own window was open for 4 s
  handOn();
  await tick();
  assert.equal(win.posted.length, 1);
  assert.equal(win.posted[0].data.options.timeout, 56000);
  win.reply(win.posted[0].data.rid, { kind: 'error', error: { name: 'NotAllowedError', message: 'timed out' } });
  await assert.rejects(promise, (e) => e.name === 'NotAllowedError');
});

test('a wrapper that copies the options before handing them on: the browser\'s own serves the copy', async () => {
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    const creds = w.navigator.credentials;
    const found = creds.get.bind(creds);
    creds.get = function get(options) { return found({ ...options, publicKey: { ...options.publicKey } }); };
  } });
  assert.equal(await win.navigator.credentials.get(getOptions()), 'native-get');
  assert.equal(win.posted.length, 0);
});

test('a wrapper that reads as native code (a bound copy, an exported function) is not offered requests first', async () => {
  const win = fakeWindow({ converting: true, beforeBridge: (w) => {
    const creds = w.navigator.credentials;
    creds.get = function get(options) { return Promise.resolve(`manager-${options.publicKey.rpId}`); }.bind(null);
  } });
  const promise = win.navigator.credentials.get(getOptions());
  assert.equal(win.posted.length, 1, 'the bridge serves first, as beside a wrapper it cannot read');
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  assert.equal(await promise, 'manager-example.com', 'what it hands below still goes to that wrapper');
});

test('conditional requests still go below, to the wrapper, without the tripwire', async () => {
  const { win, c, served } = firstWrapper();
  assert.equal(await c.get(managerGet({ mediation: 'conditional' })), 'manager-get');
  assert.equal(await c.get({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1), rpId: 'example.com' } }),
    'native-get');
  assert.deepEqual(served, [['get', 'conditional']]);
  assert.equal(win.posted.length, 0);
});
