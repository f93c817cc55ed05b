// page/interceptor.js against a fake window: which calls are bridged, what is posted, how replies settle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import chromium from '../common/chromium-texts.js';
import { assertionFrame, codec, createOptions, fakeWindow, getOptions, tick } from './fake-window.mjs';


test('create/get are patched on the existing container, which keeps store and preventSilentAccess', () => {
  const win = fakeWindow();
  const container = win.navigator.credentials;
  assert.equal(container.create.__webauthnBridge, true, 'page-side flag');
  assert.equal(container.get.__webauthnBridge, true);
  assert.equal(Object.hasOwn(container, 'create'), false, 'patched on the prototype, like the native');
  assert.equal(container.create.name, 'create');
  assert.equal(container.get.length, 0);
  assert.equal(typeof container.store, 'function');
  assert.equal(typeof container.preventSilentAccess, 'function');
  assert.throws(() => new container.create(), TypeError, 'not constructible, like a native method');
  assert.equal(Object.keys(container.create).length, 0, 'flag is not enumerable');
});

test('get posts one request with the binary encoded, then resolves a credential from the result', async () => {
  const win = fakeWindow();
  const promise = win.navigator.credentials.get(getOptions());
  assert.equal(win.posted.length, 1);
  const { data, target } = win.posted[0];
  assert.equal(target, 'https://example.com');
  assert.equal(data.channel, codec.CHANNEL);
  assert.equal(data.kind, 'request');
  assert.equal(data.type, 'get');
  assert.deepEqual(data.options, { challenge: { __binary__: 'AQID' }, rpId: 'example.com' });
  assert.deepEqual(Object.keys(data.options), ['challenge', 'rpId'], 'members in conversion order');
  assert.equal('origin' in data, false, 'the page never states an origin');
  assert.equal(win.reply(data.rid, { kind: 'result', credential: assertionFrame }), true, 'own traffic is hidden from page listeners');
  const cred = await promise;
  assert.ok(cred instanceof win.PublicKeyCredential);
  assert.ok(cred.response instanceof win.AuthenticatorAssertionResponse);
  assert.equal(cred.id, 'AQI');
  assert.equal(win.nativeCalls.length, 0);
});

test('create with an error frame rejects with that DOMException', async () => {
  const win = fakeWindow();
  const promise = win.navigator.credentials.create(createOptions());
  win.reply(win.posted[0].data.rid, { kind: 'error', error: { name: 'InvalidStateError', message: 'excluded' } });
  await assert.rejects(promise, (e) => e instanceof DOMException && e.name === 'InvalidStateError' && e.message === 'excluded');
});

test('what the bridge does not serve goes to the browser, converted, with no page getter run twice', async () => {
  const win = fakeWindow();
  const c = win.navigator.credentials;
  assert.equal(await c.get({ password: true }), 'native-get');
  assert.equal(await c.create({ password: {} }), 'native-create');
  assert.equal(await c.get(), 'native-get');
  let reads = 0;
  const conditional = { mediation: 'conditional', get publicKey() { reads++; return { challenge: new Uint8Array(1) }; } };
  const conditionalCall = c.get(conditional);
  // A conditional get asks the background whether Chromium's proxy is attached first (below); here it is not.
  assert.deepEqual([win.posted.length, win.posted[0].data.kind], [1, 'capabilities']);
  win.reply(win.posted[0].data.rid, { kind: 'capabilities', capabilities: null, proxyAttached: false });
  assert.equal(await conditionalCall, 'native-get');
  assert.equal(await c.get({ ...getOptions(), uiMode: 'immediate' }), 'native-get');
  assert.equal(await c.get({ ...getOptions(), identity: {} }), 'native-get');
  assert.equal(win.posted.length, 1, 'no request to the relay');
  const [, thisArg, given] = win.nativeCalls[3];
  assert.equal(thisArg, c, 'called on navigator.credentials');
  assert.equal(given.mediation, 'conditional');
  assert.equal(given.publicKey.challenge.length, 1);
  assert.equal(reads, 1, 'the browser reads the converted value, not the page\'s getter');
});

test('an unknown mediation or a throwing getter rejects as in the browser, and nothing is posted', async () => {
  const win = fakeWindow();
  await assert.rejects(win.navigator.credentials.get({ ...getOptions(), mediation: 'bogus' }),
    (e) => e instanceof TypeError && /not a valid enum value of type CredentialMediationRequirement/.test(e.message));
  const mine = new RangeError('mine');
  await assert.rejects(win.navigator.credentials.get({ get publicKey() { throw mine; } }), (e) => e === mine);
  await assert.rejects(win.navigator.credentials.create({ publicKey: [] }), (e) => e instanceof TypeError && /'challenge'/.test(e.message));
  assert.equal(win.posted.length, 0);
  assert.equal(win.nativeCalls.length, 0);
});

test('Firefox\'s conversions in Firefox', async () => {
  const win = fakeWindow({ browser: 'firefox' });
  await assert.rejects(win.navigator.credentials.get({ publicKey: null }),
    { name: 'TypeError', message: "CredentialsContainer.get: Missing required 'challenge' member of PublicKeyCredentialRequestOptions." });
});

test('an already aborted signal rejects with its reason at once, without posting', async () => {
  const win = fakeWindow();
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(win.navigator.credentials.get({ ...getOptions(), signal: controller.signal }), (e) => e instanceof DOMException && e.name === 'AbortError');
  const custom = new AbortController();
  const reason = new Error('mine');
  custom.abort(reason);
  await assert.rejects(win.navigator.credentials.create({ ...createOptions(), signal: custom.signal }), (e) => e === reason);
  assert.equal(win.posted.length, 0);
});

test('what a page script does to Promise, AbortSignal and Function.prototype.call later changes nothing', async () => {
  const win = fakeWindow();
  const saved = {
    reject: Promise.reject, call: Function.prototype.call,
    aborted: Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted'),
    add: EventTarget.prototype.addEventListener,
  };
  const controller = new AbortController();
  controller.abort(new Error('mine'));
  try {
    Promise.reject = () => 'forged';
    Object.defineProperty(AbortSignal.prototype, 'aborted', { get: () => false, configurable: true });
    EventTarget.prototype.addEventListener = () => { throw new Error('forged'); };
    Function.prototype.call = function () { throw new Error('forged'); };
    const promise = win.navigator.credentials.get({ ...getOptions(), signal: controller.signal });
    Function.prototype.call = saved.call;
    await assert.rejects(promise, (e) => e.message === 'mine', 'the signal is read through the native getter');
    assert.equal(win.posted.length, 0);
    const live = new AbortController();
    const second = win.navigator.credentials.get({ ...getOptions(), signal: live.signal });
    live.abort();
    await assert.rejects(second, (e) => e.name === 'AbortError', 'the abort listener went through the native addEventListener');
  } finally {
    Function.prototype.call = saved.call;
    Promise.reject = saved.reject;
    Object.defineProperty(AbortSignal.prototype, 'aborted', saved.aborted);
    EventTarget.prototype.addEventListener = saved.add;
  }
});

test('aborting later sends cancel, rejects with AbortError and ignores the late reply', async () => {
  const win = fakeWindow();
  const controller = new AbortController();
  const promise = win.navigator.credentials.get({ ...getOptions(), signal: controller.signal });
  const rid = win.posted[0].data.rid;
  controller.abort();
  await assert.rejects(promise, (e) => e.name === 'AbortError');
  assert.deepEqual(win.posted[1].data, { channel: codec.CHANNEL, dir: 'to-relay', kind: 'cancel', rid });
  win.reply(rid, { kind: 'result', credential: assertionFrame }); // too late: must not throw or resolve anything
  // And the frame is free again.
  win.navigator.credentials.get(getOptions());
  assert.equal(win.posted.length, 3);
});

test('a second concurrent request is refused like Chromium: NotAllowedError "A request is already pending."', async () => {
  const win = fakeWindow();
  const first = win.navigator.credentials.get(getOptions());
  await assert.rejects(win.navigator.credentials.create(createOptions()), (e) => e.name === 'NotAllowedError' && e.message === chromium.pending);
  assert.equal(win.posted.length, 1);
  win.reply(win.posted[0].data.rid, { kind: 'error', error: { name: 'NotAllowedError', message: 'x' } });
  await assert.rejects(first);
});

test('a second request in Firefox aborts the first (AbortError in Firefox\'s words) and goes to the host', async () => {
  const win = fakeWindow({ browser: 'firefox' });
  const first = win.navigator.credentials.get(getOptions());
  const firstRid = win.posted[0].data.rid;
  const second = win.navigator.credentials.create(createOptions());
  await assert.rejects(first, (e) => e instanceof DOMException && e.name === 'AbortError' && e.message === 'The operation was aborted. ');
  assert.deepEqual(win.posted.map((p) => p.data.kind), ['request', 'cancel', 'request']);
  assert.equal(win.posted[1].data.rid, firstRid);
  win.reply(firstRid, { kind: 'error', error: { name: 'NotAllowedError', message: 'late' } }); // the first's: ignored
  win.reply(win.posted[2].data.rid, { kind: 'error', error: { name: 'InvalidStateError', message: chromium.credentialExcluded } });
  await assert.rejects(second, (e) => e.name === 'InvalidStateError'
    && e.message === 'An attempt was made to use an object that is not, or is no longer, usable');
});

test('Firefox pages get Firefox\'s words for the host\'s and the background\'s errors; Chromium pages Chromium\'s', async () => {
  const cases = [
    [{ name: 'NotAllowedError', message: chromium.notAllowed }, 'The request is not allowed by the user agent or the platform in the current context, possibly because the user denied permission.'],
    [{ name: 'NotAllowedError', message: chromium.focus }, 'CredentialsContainer request is not allowed.'],
    [{ name: 'NotAllowedError', message: chromium.activation }, 'CredentialsContainer request is not allowed.'],
    [{ name: 'NotAllowedError', message: chromium.policy.replace('{type}', 'get') }, 'CredentialsContainer request is not allowed.'],
    [{ name: 'SecurityError', message: chromium.badRelyingPartyID }, 'The operation is insecure.'],
    [{ name: 'NotAllowedError', message: chromium.opaque }, 'The operation is insecure.', 'SecurityError'],
    [{ name: 'NotSupportedError', message: 'Required parameters missing in `options.publicKey`.' }, 'Operation is not supported'],
    [{ name: 'SyntaxError', message: "'prf' extension contains an empty credential ID in 'evalByCredential'" }, 'An invalid or illegal string was specified'],
    [{ name: 'TimeoutError', message: 'timed out' }, 'The request is not allowed by the user agent or the platform in the current context, possibly because the user denied permission.'],
    [{ name: 'TypeError', message: 'User handle exceeds 64 bytes.' }, 'user.id is too long'],
    [{ name: 'TypeError', message: 'something else' }, 'something else'],
  ];
  for (const [error, firefoxText, firefoxName] of cases) {
    for (const browser of ['chromium', 'firefox']) {
      const win = fakeWindow({ browser });
      const promise = win.navigator.credentials.get(getOptions());
      win.reply(win.posted[0].data.rid, { kind: 'error', error });
      const expected = browser === 'firefox' ? [firefoxName || error.name, firefoxText] : [error.name, error.message];
      if (expected[0] === 'TimeoutError') expected[0] = 'NotAllowedError';
      await assert.rejects(promise, (e) => e.name === expected[0] && e.message === expected[1], `${browser}: ${error.message}`);
    }
  }
});

test('a conditional create in Chromium goes by the relay (for the proxy path) and, on fallback, to the browser\'s own', async () => {
  const win = fakeWindow();
  const promise = win.navigator.credentials.create({ ...createOptions(), mediation: 'conditional' });
  assert.equal(win.posted[0].data.mediation, 'conditional');
  assert.equal(win.nativeCalls.length, 0);
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'conditional' });
  assert.equal(await promise, 'native-create');
  assert.equal(win.nativeCalls[0][2].mediation, 'conditional');
  const firefox = fakeWindow({ browser: 'firefox' });
  assert.equal(await firefox.navigator.credentials.create({ ...createOptions(), mediation: 'conditional' }), 'native-create');
  assert.equal(firefox.posted.length, 0, 'Firefox has no proxy path: its own answers at once');
});

test('a fallback reply hands the converted options to the browser\'s own get', async () => {
  const win = fakeWindow();
  const options = getOptions();
  const promise = win.navigator.credentials.get(options);
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'host-missing' });
  assert.equal(await promise, 'native-get');
  assert.equal(win.nativeCalls[0][2].publicKey.challenge, options.publicKey.challenge, 'the page\'s own buffer');
  assert.equal(win.nativeCalls[0][2].publicKey.rpId, 'example.com');
  assert.equal(win.nativeCalls[0][1], win.navigator.credentials);
});

test('a fallback after the bridge held the request gives what is below the time the page has left, and its signal', async () => {
  const win = fakeWindow();
  const controller = new AbortController();
  const promise = win.navigator.credentials.get({ publicKey: { ...getOptions().publicKey, timeout: 20000 }, signal: controller.signal });
  win.now += 7000.4; // the user read the security-key window, then chose another way
  // A page script replacing performance.now meanwhile changes nothing: the clock was captured at install.
  win.Performance.prototype.now = () => 0;
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  assert.equal(await promise, 'native-get');
  const given = win.nativeCalls[0][2];
  assert.equal(given.publicKey.timeout, 13000);
  assert.equal(given.signal, controller.signal, 'the page\'s own signal: an abort now reaches what is below');
  assert.equal(given.publicKey.rpId, 'example.com');
  assert.equal(Object.getPrototypeOf(given), null, 'no page setter or getter on the way');
  assert.equal(Object.getPrototypeOf(given.publicKey), null);
});

test('a request without a timeout goes below without one, and a spent one as the least there is', async () => {
  const win = fakeWindow();
  const none = win.navigator.credentials.get(getOptions());
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  await none;
  assert.equal('timeout' in win.nativeCalls[0][2].publicKey, false);
  const spent = win.navigator.credentials.get({ publicKey: { ...getOptions().publicKey, timeout: 500 } });
  win.now += 900;
  win.reply(win.posted[1].data.rid, { kind: 'fallback', reason: 'another-way' });
  await spent;
  assert.equal(win.nativeCalls[1][2].publicKey.timeout, 1);
});

test('a request handed on by the user waits for its document to have the focus back, then goes below', async () => {
  const win = fakeWindow({ focused: false });
  const promise = win.navigator.credentials.create({ ...createOptions(), publicKey: { ...createOptions().publicKey, timeout: 60000 } });
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  await tick();
  assert.equal(win.nativeCalls.length, 0, 'the security-key window still has the focus: the browser\'s own would refuse');
  win.focused = true;
  win.windowListeners.focus.forEach((fn) => fn({ type: 'focus' }));
  assert.equal(await promise, 'native-create');
  assert.equal(win.nativeCalls.length, 1);
  assert.deepEqual(win.windowListeners.focus, [], 'no listener left behind');
});

test('a handed-on request whose signal aborts while it waits for the focus goes below at once (the browser answers)', async () => {
  const win = fakeWindow({ focused: false });
  const controller = new AbortController();
  const promise = win.navigator.credentials.get({ ...getOptions(), signal: controller.signal });
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'another-way' });
  controller.abort();
  assert.equal(await promise, 'native-get');
  assert.equal(win.nativeCalls[0][2].signal, controller.signal);
});

test('other fallbacks go below at once, focus or not (the page has just asked)', async () => {
  const win = fakeWindow({ focused: false });
  const promise = win.navigator.credentials.get(getOptions());
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'host-missing' });
  assert.equal(await promise, 'native-get');
});

/** A call of Chromium's own function on the proxy path: the test settles it as Chromium would. */
function proxiedCall(win) {
  const calls = [];
  win.nativeAnswer = () => new Promise((resolve, reject) => calls.push({ resolve, reject }));
  return calls;
}
const handedBack = () => new DOMException('', 'WebAuthnBridgeHandedBack');

test('proxy path: a call the bridge completes "handed back" and says another-way for goes below again, in either order', async () => {
  for (const order of [['completion', 'message'], ['message', 'completion']]) {
    const win = fakeWindow();
    const calls = proxiedCall(win);
    const promise = win.navigator.credentials.get({ publicKey: { ...getOptions().publicKey, timeout: 30000 } });
    const rid = win.posted[0].data.rid;
    win.reply(rid, { kind: 'fallback', reason: 'proxy' });
    assert.equal(calls.length, 1, 'Chromium\'s own function called: Chromium proxies it to the bridge');
    win.now += 5000;
    for (const step of order) {
      if (step === 'completion') calls[0].reject(handedBack());
      else win.reply(rid, { kind: 'fallback', reason: 'another-way' });
      await tick();
    }
    assert.equal(calls.length, 2, `${order}: called again, the proxy now detached`);
    assert.equal(win.nativeCalls[1][2].publicKey.timeout, 25000, 'with the time left');
    calls[1].resolve('own-credential');
    assert.equal(await promise, 'own-credential');
    assert.deepEqual(win.posted.slice(1).map((m) => [m.data.kind, m.data.rid]), [['below-done', rid]], 'the bridge may attach again');
  }
});

test('proxy path: what Chromium answers otherwise is the page\'s answer; a page cannot hand a call back', async () => {
  const win = fakeWindow();
  const calls = proxiedCall(win);
  const served = win.navigator.credentials.get(getOptions());
  win.reply(win.posted[0].data.rid, { kind: 'fallback', reason: 'proxy' });
  calls[0].resolve('bridge-credential-through-chromium');
  assert.equal(await served, 'bridge-credential-through-chromium');
  const refused = win.navigator.credentials.get(getOptions());
  const rid = win.posted[1].data.rid;
  win.reply(rid, { kind: 'fallback', reason: 'proxy' });
  win.reply(rid, { kind: 'fallback', reason: 'another-way' }); // posted by the page itself: no completion follows
  calls[1].reject(new DOMException('no', 'NotAllowedError'));
  await assert.rejects(refused, (e) => e.name === 'NotAllowedError' && e.message === 'no');
  assert.equal(calls.length, 2, 'nothing called again');
  assert.equal(win.posted.length, 2, 'no below-done');
});

test('proxy path: a call the bridge says ends with its detach ("call-again") is made anew when told proxy again; an abort meanwhile is the page\'s', async () => {
  for (const order of [['end', 'proxy'], ['proxy', 'end']]) {
    const win = fakeWindow({ focused: false });
    const calls = proxiedCall(win);
    const promise = win.navigator.credentials.get(getOptions());
    const rid = win.posted[0].data.rid;
    win.reply(rid, { kind: 'fallback', reason: 'proxy' });
    win.reply(rid, { kind: 'fallback', reason: 'call-again' });
    assert.deepEqual(win.posted.slice(1).map((m) => [m.data.kind, m.data.rid]), [['interrupted', rid]], 'says it heard');
    for (const step of order) {
      // What Chromium says to a page without the focus when the detach ends its call.
      if (step === 'end') calls[0].reject(new DOMException('The operation is not allowed at this time because the page does not have focus.', 'NotAllowedError'));
      else win.reply(rid, { kind: 'fallback', reason: 'proxy' });
      await tick();
    }
    assert.equal(calls.length, 2, `${order}: called again`);
    calls[1].resolve('bridge-credential-through-chromium');
    assert.equal(await promise, 'bridge-credential-through-chromium');
  }
  const win = fakeWindow();
  const calls = proxiedCall(win);
  const controller = new AbortController();
  const aborted = win.navigator.credentials.get({ ...getOptions(), signal: controller.signal });
  const rid = win.posted[0].data.rid;
  win.reply(rid, { kind: 'fallback', reason: 'proxy' });
  win.reply(rid, { kind: 'fallback', reason: 'call-again' });
  calls[0].reject(new DOMException('The operation was aborted.', 'AbortError'));
  await tick();
  controller.abort(new DOMException('gave up', 'AbortError'));
  await assert.rejects(aborted, (e) => e.name === 'AbortError' && e.message === 'gave up');
  win.reply(rid, { kind: 'fallback', reason: 'proxy' });
  await tick();
  assert.equal(calls.length, 1, 'not called again after the page gave up');
});

test('replies from another window, another channel, a wrong rid or a bad shape are ignored', async () => {
  const win = fakeWindow();
  const promise = win.navigator.credentials.get(getOptions());
  const rid = win.posted[0].data.rid;
  const message = { channel: codec.CHANNEL, dir: 'to-page', rid, kind: 'error', error: { name: 'SecurityError', message: 'forged' } };
  assert.equal(win.deliver(message, { other: true }), false);
  win.deliver({ ...message, channel: 'x' });
  win.deliver({ ...message, rid: 'other' });
  win.deliver({ ...message, kind: 'result' }); // no credential
  let settled = false;
  promise.then(() => { settled = true; }, () => { settled = true; });
  await tick();
  assert.equal(settled, false);
  win.reply(rid, { kind: 'result', credential: assertionFrame });
  assert.equal((await promise).id, 'AQI');
});

test('a malformed credential from the relay rejects with NotAllowedError instead of hanging', async () => {
  const win = fakeWindow();
  const promise = win.navigator.credentials.get(getOptions());
  win.reply(win.posted[0].data.rid, { kind: 'result', credential: { type: 'public-key', id: 'x' } });
  await assert.rejects(promise, (e) => e.name === 'NotAllowedError');
});

test('bad options reject with a TypeError and post nothing', async () => {
  const win = fakeWindow();
  await assert.rejects(win.navigator.credentials.get({ publicKey: 7 }), TypeError);
  assert.equal(win.posted.length, 0);
});

test('a wrong `this` is left to the original, which raises as the browser does', async () => {
  const win = fakeWindow();
  const get = win.navigator.credentials.get;
  await get.call({}, getOptions());
  assert.equal(win.posted.length, 0);
  assert.equal(win.nativeCalls.length, 1);
});

test('getClientCapabilities merges the browser answer with the host capabilities from the relay', async () => {
  const win = fakeWindow({ capabilities: { conditionalGet: true, hybridTransport: true } });
  const promise = win.PublicKeyCredential.getClientCapabilities();
  await tick();
  const ask = win.posted[0].data;
  assert.equal(ask.kind, 'capabilities');
  win.reply(ask.rid, { kind: 'capabilities', capabilities: { 'extension:prf': true } });
  assert.deepEqual(await promise, { conditionalGet: true, hybridTransport: false, passkeyPlatformAuthenticator: false, 'extension:prf': true });
  assert.equal(await win.PublicKeyCredential.isConditionalMediationAvailable(), true, 'browser answer kept');
});

test('getClientCapabilities is defined where the browser lacks it, and is the browser\'s when the host is away', async () => {
  const win = fakeWindow();
  const promise = win.PublicKeyCredential.getClientCapabilities();
  await tick();
  win.reply(win.posted[0].data.rid, { kind: 'capabilities', capabilities: null });
  assert.deepEqual(await promise, {});
});

test('a signal that is not an AbortSignal is a TypeError, as WebIDL conversion gives', async () => {
  const win = fakeWindow();
  await assert.rejects(win.navigator.credentials.get({ ...getOptions(), signal: { aborted: false } }), TypeError);
  assert.equal(win.posted.length, 0);
});

test('the page world decides no frame rule: a frame that forged its policy, activation and focus still only posts', async () => {
  // What a hostile frame does to the page world (document.featurePolicy, navigator.userActivation,
  // document.hasFocus, Function.prototype.call …) changes nothing here: the request goes to the relay, whose
  // isolated world decides (relay.test.mjs), and the background again (who-may-call.test.mjs).
  const policy = { features: () => ['publickey-credentials-get'], allowsFeature: () => false };
  const crossTop = { get location() { throw new DOMException('Blocked', 'SecurityError'); } };
  const win = fakeWindow({ policy, top: crossTop, activation: { isActive: false } });
  const promise = win.navigator.credentials.create(createOptions());
  assert.equal(win.nativeCalls.length, 0, 'not handed to the browser by the page world either');
  assert.equal(win.posted.length, 1);
  const { rid } = win.posted[0].data;
  win.reply(rid, { kind: 'error', error: { name: 'NotAllowedError', message: "The 'publickey-credentials-create' feature is not enabled in this document." } });
  await assert.rejects(promise, (e) => e.name === 'NotAllowedError');
});

test('a sandboxed document posts to its own window with target "*": its URL\'s origin is not its origin', () => {
  const win = fakeWindow({ origin: 'null' });
  win.navigator.credentials.get(getOptions());
  assert.equal(win.posted[0].target, '*');
});
