// page/interceptor.js (with the parts it wires), page/tripwire.js and page/on-top.js under a page that redefines
// built-ins during a request or assigns the bridge's own function back onto navigator.credentials: every promise
// settles, each request is served once, and the proxy path's hand-back stays the page script's (docs/security.md,
// "The page world under a page that fights it").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertionFrame, fakeWindow, getOptions, tick, wrapperLike } from './fake-window.mjs';

/** Runs `during` (awaited) with `object[key]` redefined as `descriptor`: node shares its built-ins with the fake page. */
async function redefined(object, key, descriptor, during) {
  const saved = Object.getOwnPropertyDescriptor(object, key);
  Object.defineProperty(object, key, { configurable: true, ...descriptor });
  try {
    return await during();
  } finally {
    Object.defineProperty(object, key, saved);
  }
}

/** Settles within a few turns, or says it is still pending. */
const outcome = (promise) => Promise.race([
  promise.then((value) => ['resolved', value], (error) => ['rejected', error.name]),
  tick().then(tick).then(() => ['pending']),
]);

const beside = (extra = {}) => fakeWindow({ converting: true, ...extra,
  beforeBridge: (w) => { wrapperLike(w, 'manager.example'); } });

test('a bound copy of the bridge\'s own assigned back on top of it: what it hands on goes to the browser\'s own', async () => {
  const win = beside();
  const c = win.navigator.credentials;
  // A site's `navigator.credentials.get = navigator.credentials.get.bind(navigator.credentials)`: it reads as a
  // torn-down wrapper's put-back (named "bound get", native), and goes below the bridge.
  c.get = c.get.bind(c);
  assert.deepEqual(await outcome(c.get({ password: true })), ['resolved', 'native-get'], 'no stack overflow');
  const modal = c.get(getOptions());
  assert.equal(win.posted.length, 1);
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'host-missing' });
  assert.deepEqual(await outcome(modal), ['resolved', 'native-get']);
  assert.equal(win.posted.length, 1, 'not posted again: the fallback is not served round again');
});

test('a throwing Object.assign or Math.round as a wrapper hands a request on: the page\'s promise settles', async () => {
  for (const [object, key] of [[Object, 'assign'], [Math, 'round']]) {
    const win = beside();
    const thrower = () => { throw new RangeError('page'); };
    const result = await redefined(object, key, { value: thrower, writable: true }, async () => {
      const promise = win.navigator.credentials.get({ publicKey: { ...getOptions().publicKey, timeout: 30000 } });
      await tick();
      win.posted.forEach(({ data }) => win.reply(data.rid, { kind: 'result', credential: assertionFrame }));
      return outcome(promise);
    });
    assert.notDeepEqual(result, ['pending'], `${key}: settled`);
    assert.equal(win.nativeCalls.length, 0, `${key}: never the browser's own as well`);
  }
});

test('proxy path: a page whose promises\' constructor throws neither sees the hand-back nor stops it', async () => {
  const win = fakeWindow();
  const calls = [];
  win.nativeAnswer = () => new Promise((resolve, reject) => calls.push({ resolve, reject }));
  const promise = win.navigator.credentials.get(getOptions());
  const rid = win.posted[0].data.rid;
  // Only while the proxied call is made (node's own promises read the constructor too).
  const saved = Object.getOwnPropertyDescriptor(Promise.prototype, 'constructor');
  const throwing = { get() { throw new TypeError('page'); }, configurable: true };
  Object.defineProperty(Promise.prototype, 'constructor', throwing);
  try {
    win.reply(rid, { kind: 'fallback', reason: 'proxy' });
  } finally {
    Object.defineProperty(Promise.prototype, 'constructor', saved);
  }
  calls[0].reject(new DOMException('', 'WebAuthnBridgeHandedBack'));
  win.reply(rid, { kind: 'fallback', reason: 'another-way' });
  await tick();
  assert.equal(calls.length, 2, 'called again below');
  calls[1].resolve('own-credential');
  assert.deepEqual(await outcome(promise), ['resolved', 'own-credential']);
});

test('proxy path: a put-back of the page\'s that answers a revoked Proxy: the page\'s promise settles', async () => {
  const win = beside();
  const c = win.navigator.credentials;
  const revoked = () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; };
  c.get = function get() { return revoked(); }.bind(c);   // named "bound get", native to read: taken as a put-back
  const promise = c.get(getOptions());
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'proxy' });
  assert.deepEqual(await outcome(promise), ['rejected', 'TypeError']);
});

test('a page that replaced setTimeout/clearTimeout after the bridge loaded: the capabilities question never calls them', async () => {
  const win = fakeWindow({ capabilities: { conditionalGet: true } });
  const called = [];
  win.setTimeout = () => { called.push('setTimeout'); throw new RangeError('page'); };
  win.clearTimeout = () => { called.push('clearTimeout'); };
  const promise = win.PublicKeyCredential.getClientCapabilities();
  await tick();
  win.reply(win.posted[0].data.rid, { kind: 'capabilities', capabilities: { 'extension:prf': true } });
  const [settled, capabilities] = await outcome(promise);
  assert.equal(settled, 'resolved');
  assert.equal(capabilities['extension:prf'], true, 'the background\'s answer');
  assert.deepEqual(called, [], 'the timers captured at install');
});
