// page/interceptor.js beside another extension's wrapper of navigator.credentials (a password manager's page
// script), on top of the bridge or below it: what each serves, what reaches the bridge, conditional requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertionFrame, createOptions, fakeWindow, getOptions, tick, wrapperLike } from './fake-window.mjs';

test('a wrapper that ran after the bridge finds the bridge, and what it hands on reaches the bridge', async () => {
  const win = fakeWindow();
  const served = wrapperLike(win, 'manager.example');
  const c = win.navigator.credentials;
  assert.equal(c.get.__webauthnBridge, undefined, 'the wrapper is on top');
  assert.equal(await c.create({ publicKey: { ...createOptions().publicKey, rp: { id: 'manager.example', name: 'm' } } }),
    'manager-create');
  assert.equal(win.posted.length, 0, 'what the wrapper serves never reaches the bridge');
  const promise = c.get(getOptions());
  assert.equal(win.posted.length, 1, 'the rest, bound to navigator.credentials, reaches the bridge');
  win.reply(win.posted[0].data.rid, { kind: 'result', credential: assertionFrame });
  assert.equal((await promise).id, 'AQI');
  const conditional = c.get({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1), rpId: 'example.com' } });
  win.reply(win.posted[1].data.rid, { kind: 'capabilities', capabilities: {}, proxyAttached: false });
  assert.equal(await conditional, 'native-get', 'conditional: through the bridge to the browser');
  assert.deepEqual(served, [['create', undefined]]);
});

test('a conditional get while Chromium\'s proxy is attached waits until it is detached or aborted: a wrapper racing it gets its own answer', async () => {
  const win = fakeWindow();
  const creds = win.navigator.credentials;
  const found = creds.get.bind(creds);
  const controller = new AbortController();
  const last = (kind) => win.posted.filter((m) => m.data.kind === kind).at(-1).data.rid;
  // Bitwarden's way: its own answer raced against what it found, the loser aborted.
  creds.get = (options) => Promise.race([
    new Promise((resolve) => setTimeout(() => resolve('manager-get'), 5)),
    found({ ...options, signal: controller.signal }),
  ]).finally(() => controller.abort(new DOMException('raced', 'AbortError')));
  const raced = creds.get({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1) } });
  win.reply(last('capabilities'), { kind: 'capabilities', capabilities: {}, proxyAttached: true });
  assert.equal(await raced, 'manager-get');
  assert.equal(win.nativeCalls.length, 0, 'Chromium\'s own, which refuses it at once while attached, is not called');

  const page = new AbortController();
  const held = found({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1) }, signal: page.signal });
  win.reply(last('capabilities'), { kind: 'capabilities', capabilities: {}, proxyAttached: true });
  await tick();
  page.abort(new DOMException('gone', 'AbortError'));
  await assert.rejects(held, { name: 'AbortError' });
  win.reply(last('when-detached'), { kind: 'detached' });
  await tick();
  assert.equal(win.nativeCalls.length, 0, 'an aborted one is not passed on');

  const waiting = found({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1) } });
  win.reply(last('capabilities'), { kind: 'capabilities', capabilities: {}, proxyAttached: true });
  await tick();
  assert.equal(win.nativeCalls.length, 0);
  win.reply(last('when-detached'), { kind: 'detached' });
  assert.equal(await waiting, 'native-get', 'to the browser\'s own once the proxy is detached');
  assert.equal(win.posted.filter((m) => m.data.kind === 'request').length, 0, 'nothing reaches the host');
});

test('a wrapper that put its own object at navigator.credentials: the bridge still patches the container it calls', async () => {
  const win = fakeWindow({
    beforeBridge: (w) => {
      const container = w.navigator.credentials;
      class Navigator {}
      Object.defineProperty(Navigator.prototype, 'credentials', { get() { return container; }, configurable: true });
      w.Navigator = Navigator;
      const nav = Object.setPrototypeOf({ userActivation: w.navigator.userActivation }, Navigator.prototype);
      // KeePassXC-Browser's way: an object of its own, calling the container's functions at call time.
      Object.defineProperty(nav, 'credentials', { value: { get: (options) => container.get(options) } });
      w.navigator = nav;
      w.container = container;
    },
  });
  assert.equal(win.container.get.__webauthnBridge, true);
  assert.equal(Object.hasOwn(win.container, 'get'), false, 'on the prototype, as without the wrapper');
  win.navigator.credentials.get(getOptions());
  assert.equal(win.posted.length, 1);
});

test('a wrapper that ran first, torn down, puts back the browser\'s own: it goes below the bridge, which stays on top', async () => {
  const win = fakeWindow({ beforeBridge: (w) => { wrapperLike(w, 'manager.example'); } });
  const c = win.navigator.credentials;
  const browsers = win.CredentialsContainer.prototype;
  // Bitwarden's destroy(): what it found when it ran, bound to the container, assigned back.
  c.create = browsers.create.bind(c);
  c.get = browsers.get.bind(c);
  assert.equal(c.create.__webauthnBridge && c.get.__webauthnBridge, true, 'the page still calls the bridge');
  const modal = c.get(getOptions());
  assert.equal(win.posted.length, 1, 'a modal request still reaches the bridge');
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'host-missing' });
  assert.equal(await modal, 'native-get', 'what the bridge hands on goes to the browser\'s own, not to the torn-down wrapper');
  // A conditional get now has the browser's own below: the bridge asks whether the proxy is attached first.
  const conditional = c.get({ mediation: 'conditional', publicKey: { challenge: new Uint8Array(1), rpId: 'manager.example' } });
  assert.equal(win.posted[1].data.kind, 'capabilities');
  win.reply(win.posted[1].data.rid, { kind: 'capabilities', capabilities: {}, proxyAttached: false });
  assert.equal(await conditional, 'native-get');
  // A wrapper injected again (Bitwarden's, when its passkeys are switched back on) goes on top, over the bridge.
  const served = wrapperLike(win, 'manager.example');
  assert.equal(c.get.__webauthnBridge, undefined);
  assert.equal(await c.get({ publicKey: { challenge: new Uint8Array(1), rpId: 'manager.example' } }), 'manager-get');
  assert.deepEqual(served, [['get', undefined]]);
});
