// Host `result`/`error` frames → page objects (page/codec.js decodeCredential/buildCredential/buildError and
// page/credential.js), against a stand-in page realm whose interfaces are declared as the browsers declare
// them (page-realm.mjs). The rows are issue 13's: where each member lives, its descriptor, keys, for…in,
// JSON, toString tags, instanceof, strict-mode assignment, freezing, [SameObject], names and lengths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { pageRealm, runInPage } from './page-realm.mjs';

const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');
const shapes = require('../page/credential.js');

const b = (hex) => ({ __binary__: Buffer.from(hex, 'hex').toString('base64url') });
const u8 = (buf) => Buffer.from(new Uint8Array(buf)).toString('hex');
const b64 = (hex) => Buffer.from(hex, 'hex').toString('base64url');

const SPKI = '3059301306072a8648ce3d020106082a8648ce3d03010703420004' + 'ab'.repeat(64);
const createFrame = {
  type: 'public-key', id: b64('c0ffee'), rawId: b('c0ffee'), authenticatorAttachment: 'cross-platform',
  response: {
    clientDataJSON: b('7b7d'), attestationObject: b('a0a1'), authenticatorData: b('d00d'), transports: ['usb', 'nfc'],
    publicKey: b(SPKI), publicKeyAlgorithm: -7,
  },
  clientExtensionResults: { prf: { enabled: true }, credProps: { rk: true } },
};
const getFrame = {
  type: 'public-key', id: b64('0102'), rawId: b('0102'), authenticatorAttachment: 'cross-platform',
  response: { clientDataJSON: b('7b7d'), authenticatorData: b('aaaa'), signature: b('3045'), userHandle: b('75') },
  clientExtensionResults: { prf: { results: { second: b('22'.repeat(32)), first: b('11'.repeat(32)) } } },
};

const INTERFACES = ['Credential', 'PublicKeyCredential', 'AuthenticatorResponse', 'AuthenticatorAttestationResponse', 'AuthenticatorAssertionResponse'];

/** Every own property of every WebAuthn prototype, as a page can observe it without calling anything. */
function declaredShape(win) {
  const toSource = (fn) => win.Function.prototype.toString.call(fn);
  const describeFn = (fn) => fn && { name: fn.name, length: fn.length, source: toSource(fn), keys: Reflect.ownKeys(fn), hasPrototype: 'prototype' in fn };
  const out = {};
  for (const name of INTERFACES) {
    const proto = win[name].prototype;
    out[name] = Reflect.ownKeys(proto).map((key) => {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      return {
        key: String(key), enumerable: d.enumerable, configurable: d.configurable, writable: d.writable,
        get: describeFn(d.get), set: describeFn(d.set), value: typeof d.value === 'function' ? describeFn(d.value) : d.value && typeof d.value,
      };
    });
  }
  return out;
}

function forIn(object) {
  const keys = [];
  for (const key in object) keys.push(key);
  return keys;
}

test('the credential is a plain object on the browser\'s prototypes, with no own properties', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  assert.equal(Object.getPrototypeOf(cred), win.PublicKeyCredential.prototype);
  assert.equal(Object.getPrototypeOf(cred.response), win.AuthenticatorAttestationResponse.prototype);
  assert.deepEqual(Reflect.ownKeys(cred), []);
  assert.deepEqual(Reflect.ownKeys(cred.response), []);
  assert.ok(cred instanceof win.PublicKeyCredential && cred instanceof win.Credential);
  assert.ok(cred.response instanceof win.AuthenticatorAttestationResponse && cred.response instanceof win.AuthenticatorResponse);
  assert.equal(cred.response instanceof win.AuthenticatorAssertionResponse, false);
  assert.equal(Object.prototype.toString.call(cred), '[object PublicKeyCredential]');
  assert.equal(Object.prototype.toString.call(cred.response), '[object AuthenticatorAttestationResponse]');
  assert.equal(cred.constructor, win.PublicKeyCredential);
});

test('every member stays where the browser declares it, with its descriptor, name, length and source', () => {
  const win = pageRealm();
  const before = declaredShape(win);
  const getterBefore = Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get;
  codec.buildCredential(getFrame, win);
  const getterAfter = Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get;
  assert.notEqual(getterAfter, getterBefore, 'the getter was replaced');
  assert.deepEqual(declaredShape(win), before);
  assert.equal(getterAfter.name, 'get rawId');
  assert.throws(() => new win.PublicKeyCredential.prototype.toJSON(), TypeError, 'not constructible, like a native method');
  assert.equal(Object.getPrototypeOf(win.PublicKeyCredential.prototype.toJSON), Function.prototype,
    'the replacement is an ordinary function (its realm is the test\'s; in the page it is the page\'s)');
});

test('Object.keys is empty and for…in walks the prototypes as for the browser\'s own credential', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  const native = win.makeNativeCredential('n');
  assert.deepEqual(Object.keys(cred), []);
  assert.deepEqual(forIn(cred), forIn(native));
  assert.deepEqual(forIn(cred), ['rawId', 'response', 'authenticatorAttachment', 'getClientExtensionResults', 'toJSON', 'id', 'type']);
  assert.deepEqual(forIn(cred.response), ['attestationObject', 'getTransports', 'getAuthenticatorData', 'getPublicKey', 'getPublicKeyAlgorithm', 'clientDataJSON']);
});

test('strict-mode assignment: a method takes an own override, an attribute throws, as on the browser\'s object', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  cred.toJSON = () => ({ mine: true }); // ES modules are strict: this threw "read only property" before issue 13
  assert.ok(Object.hasOwn(cred, 'toJSON'));
  assert.equal(JSON.stringify(cred), '{"mine":true}');
  delete cred.toJSON;
  assert.equal(JSON.parse(JSON.stringify(cred)).id, b64('c0ffee'), 'the prototype\'s toJSON is back');
  cred.getClientExtensionResults = () => 1;
  cred.response.getTransports = () => ['x'];
  assert.deepEqual(cred.response.getTransports(), ['x']);
  for (const key of ['id', 'type', 'rawId', 'response', 'authenticatorAttachment']) {
    assert.throws(() => { cred[key] = 1; }, TypeError, key);
  }
  assert.throws(() => { cred.response.clientDataJSON = 1; }, TypeError);
  assert.throws(() => { cred.response.attestationObject = 1; }, TypeError);
});

test('freezing works as on the browser\'s object, and a frozen credential still answers', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  assert.equal(Object.isFrozen(cred), false);
  assert.equal(Object.isExtensible(cred), true);
  assert.equal(Object.freeze(cred), cred);
  assert.equal(Object.isFrozen(cred), true);
  assert.throws(() => { cred.toJSON = () => 1; }, TypeError, 'not extensible any more');
  assert.equal(cred.id, b64('c0ffee'));
  assert.equal(cred.toJSON().id, b64('c0ffee'));
  assert.equal(Object.isFrozen(cred.response), false, 'freezing the credential does not freeze its response');
});

test('attributes are [SameObject]; getTransports a new array each call; getPublicKey the SPKI DER', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  const r = cred.response;
  assert.equal(cred.id, b64('c0ffee'));
  assert.equal(cred.type, 'public-key');
  assert.equal(cred.authenticatorAttachment, 'cross-platform');
  assert.ok(cred.rawId instanceof ArrayBuffer);
  assert.equal(u8(cred.rawId), 'c0ffee');
  assert.equal(cred.rawId, cred.rawId);
  assert.equal(cred.response, cred.response);
  assert.equal(r.clientDataJSON, r.clientDataJSON);
  assert.equal(r.attestationObject, r.attestationObject);
  assert.equal(u8(r.attestationObject), 'a0a1');
  assert.equal(u8(r.getAuthenticatorData()), 'd00d');
  assert.equal(r.getAuthenticatorData(), r.getAuthenticatorData(), 'as Chromium: the same buffer each call');
  assert.equal(u8(r.getPublicKey()), SPKI);
  assert.equal(r.getPublicKey(), r.getPublicKey(), 'as Chromium: the same buffer each call');
  assert.equal(r.getPublicKeyAlgorithm(), -7);
  const transports = r.getTransports();
  assert.deepEqual(transports, ['usb', 'nfc']);
  transports.push('ble');
  assert.deepEqual(r.getTransports(), ['usb', 'nfc']);
  assert.notEqual(r.getTransports(), r.getTransports());
  const noKey = codec.buildCredential({ ...createFrame, response: { ...createFrame.response, publicKey: null } }, win);
  assert.equal(noKey.response.getPublicKey(), null);
});

test('an assertion: authenticatorData, signature and userHandle as ArrayBuffers, [SameObject]', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(getFrame, win);
  const r = cred.response;
  assert.equal(Object.getPrototypeOf(r), win.AuthenticatorAssertionResponse.prototype);
  assert.equal(u8(r.authenticatorData), 'aaaa');
  assert.equal(u8(r.signature), '3045');
  assert.equal(u8(r.userHandle), '75');
  assert.equal(u8(r.clientDataJSON), '7b7d');
  assert.equal(r.signature, r.signature);
  assert.equal(r.userHandle, r.userHandle);
  const noHandle = codec.buildCredential({ ...getFrame, response: { ...getFrame.response, userHandle: null } }, win);
  assert.equal(noHandle.response.userHandle, null);
});

test('registration toJSON: the L3 RegistrationResponseJSON with the members in WebIDL dictionary order', () => {
  const cred = codec.buildCredential(createFrame, pageRealm());
  const json = cred.toJSON();
  assert.deepEqual(json, {
    authenticatorAttachment: 'cross-platform',
    clientExtensionResults: { credProps: { rk: true }, prf: { enabled: true } },
    id: b64('c0ffee'),
    rawId: b64('c0ffee'),
    response: {
      attestationObject: b64('a0a1'), authenticatorData: b64('d00d'), clientDataJSON: b64('7b7d'),
      publicKey: b64(SPKI), publicKeyAlgorithm: -7, transports: ['usb', 'nfc'],
    },
    type: 'public-key',
  });
  // Chromium 156: {"authenticatorAttachment":…,"clientExtensionResults":…,"id":…,"rawId":…,"response":{"attestationObject":…
  assert.deepEqual(Object.keys(json), ['authenticatorAttachment', 'clientExtensionResults', 'id', 'rawId', 'response', 'type']);
  assert.deepEqual(Object.keys(json.response), ['attestationObject', 'authenticatorData', 'clientDataJSON', 'publicKey', 'publicKeyAlgorithm', 'transports']);
  assert.deepEqual(Object.keys(json.clientExtensionResults), ['credProps', 'prf']);
  assert.equal(JSON.stringify(cred), JSON.stringify(json), 'JSON.stringify goes through toJSON');
  assert.notEqual(cred.toJSON(), cred.toJSON(), 'a new object each call');
  new Uint8Array(cred.rawId)[0] = 0;
  assert.equal(cred.toJSON().rawId, b64('00ffee'), 'as Chromium 156: toJSON encodes the buffer the page holds');
});

test('toJSON leaves out publicKey, userHandle and authenticatorAttachment when there are none', () => {
  const win = pageRealm();
  const frame = { ...createFrame, authenticatorAttachment: null, response: { ...createFrame.response, publicKey: undefined } };
  const json = codec.buildCredential(frame, win).toJSON();
  assert.equal('publicKey' in json.response, false);
  assert.equal('authenticatorAttachment' in json, false);
  assert.equal(codec.buildCredential(frame, win).authenticatorAttachment, null);
  const assertion = codec.buildCredential({ ...getFrame, response: { ...getFrame.response, userHandle: null } }, win).toJSON();
  assert.deepEqual(Object.keys(assertion.response), ['authenticatorData', 'clientDataJSON', 'signature']);
});

test('assertion toJSON: the L3 AuthenticationResponseJSON, in dictionary order', () => {
  const json = codec.buildCredential(getFrame, pageRealm()).toJSON();
  assert.deepEqual(json, {
    authenticatorAttachment: 'cross-platform',
    clientExtensionResults: { prf: { results: { first: b64('11'.repeat(32)), second: b64('22'.repeat(32)) } } },
    id: b64('0102'), rawId: b64('0102'),
    response: { authenticatorData: b64('aaaa'), clientDataJSON: b64('7b7d'), signature: b64('3045'), userHandle: b64('75') },
    type: 'public-key',
  });
  assert.deepEqual(Object.keys(json.clientExtensionResults.prf.results), ['first', 'second']);
});

test('getClientExtensionResults: a new object each call around the same ArrayBuffers, keys in dictionary order', () => {
  const cred = codec.buildCredential(getFrame, pageRealm());
  const first = cred.getClientExtensionResults();
  const second = cred.getClientExtensionResults();
  assert.notEqual(first, second);
  assert.notEqual(first.prf, second.prf);
  assert.notEqual(first.prf.results, second.prf.results);
  assert.ok(first.prf.results.first instanceof ArrayBuffer);
  assert.equal(first.prf.results.first, second.prf.results.first, 'as Chromium 156: the same prf.results.first');
  assert.equal(u8(first.prf.results.first), '11'.repeat(32));
  assert.deepEqual(Object.keys(first.prf.results), ['first', 'second']);
  first.prf.results.first = null;
  assert.ok(cred.getClientExtensionResults().prf.results.first instanceof ArrayBuffer);
  const created = codec.buildCredential(createFrame, pageRealm()).getClientExtensionResults();
  assert.deepEqual(Object.keys(created), ['credProps', 'prf']);
});

test('in Firefox getAuthenticatorData(), getPublicKey() and prf results are a new ArrayBuffer each call, as Firefox\'s own', () => {
  const win = pageRealm();
  // SpiderMonkey gives every Error own columnNumber: how credential.js tells Firefox.
  win.Error = class extends win.Error { constructor(...args) { super(...args); this.columnNumber = 1; } };
  const r = codec.buildCredential(createFrame, win).response;
  assert.notEqual(r.getAuthenticatorData(), r.getAuthenticatorData());
  assert.equal(u8(r.getAuthenticatorData()), 'd00d');
  assert.notEqual(r.getPublicKey(), r.getPublicKey());
  assert.equal(u8(r.getPublicKey()), SPKI);
  assert.equal(r.attestationObject, r.attestationObject, 'attributes stay [SameObject]');
  const cred = codec.buildCredential(getFrame, win);
  const [first, second] = [cred.getClientExtensionResults(), cred.getClientExtensionResults()];
  assert.notEqual(first.prf.results.first, second.prf.results.first);
  assert.equal(u8(second.prf.results.first), '11'.repeat(32));
});

test('a wrong receiver gets the browser\'s own error; the browser\'s own credentials are still served natively', () => {
  const win = pageRealm();
  const cred = codec.buildCredential(createFrame, win);
  const rawIdGetter = Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get;
  assert.throws(() => rawIdGetter.call({}), { name: 'TypeError', message: 'Illegal invocation' });
  assert.throws(() => rawIdGetter.call(cred.response), { message: 'Illegal invocation' });
  assert.throws(() => win.PublicKeyCredential.prototype.toJSON.call(cred.response), { message: 'Illegal invocation' });
  const signature = Object.getOwnPropertyDescriptor(win.AuthenticatorAssertionResponse.prototype, 'signature').get;
  assert.throws(() => signature.call(cred.response), { message: 'Illegal invocation' }, 'an attestation has no signature');
  assert.throws(() => Object.create(cred).id, { message: 'Illegal invocation' }, 'an object inheriting from one is not one');
  const native = win.makeNativeCredential('native-id');
  assert.equal(native.id, 'native-id');
  assert.equal(JSON.stringify(native.toJSON()), '{"id":"native-id","native":true}');
  assert.equal(u8(native.response.signature), '000000');
});

test('Function.prototype.toString shows the browser\'s source for each replacement and stays native itself', () => {
  const win = pageRealm();
  const nativeToString = win.Function.prototype.toString;
  const originalSource = nativeToString.call(Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get);
  const ownSource = nativeToString.call(nativeToString);
  codec.buildCredential(createFrame, win);
  const toString = win.Function.prototype.toString;
  assert.notEqual(toString, nativeToString);
  assert.equal(toString.call(Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get), originalSource);
  assert.equal(toString.call(toString), ownSource);
  assert.equal(toString.name, 'toString');
  assert.equal(toString.length, 0);
  assert.deepEqual(Object.getOwnPropertyDescriptor(win.Function.prototype, 'toString'),
    { value: toString, writable: true, enumerable: false, configurable: true });
  assert.throws(() => toString.call({}), { name: 'TypeError' }, 'a non-function is still refused by the native toString');
  assert.equal(toString.call(win.makeNativeCredential), nativeToString.call(win.makeNativeCredential), 'other functions unchanged');
});

test('replaceStatic dresses a static as the browser\'s own: descriptor, name, length, source', async () => {
  const win = pageRealm();
  const PKC = win.PublicKeyCredential;
  const original = PKC.getClientCapabilities;
  const originalSource = win.Function.prototype.toString.call(original);
  codec.pageShapes(win).replaceStatic(PKC, 'getClientCapabilities', function () { return Promise.resolve({ mine: this === PKC }); });
  const replaced = PKC.getClientCapabilities;
  assert.notEqual(replaced, original);
  assert.deepEqual(Object.getOwnPropertyDescriptor(PKC, 'getClientCapabilities'), { value: replaced, writable: true, enumerable: true, configurable: true });
  assert.equal(replaced.name, 'getClientCapabilities');
  assert.equal(replaced.length, 0);
  assert.equal(win.Function.prototype.toString.call(replaced), originalSource);
  assert.equal(Object.hasOwn(replaced, 'prototype'), false);
  assert.throws(() => new replaced(), TypeError);
  assert.deepEqual(await PKC.getClientCapabilities(), { mine: true });
});

test('replaceStatic defines a static the browser lacks as WebIDL would, reading as a native method', () => {
  const win = pageRealm();
  const PKC = win.PublicKeyCredential;
  delete PKC.getClientCapabilities; // as in Firefox before 135
  codec.pageShapes(win).replaceStatic(PKC, 'getClientCapabilities', () => 'answer');
  const added = PKC.getClientCapabilities;
  assert.deepEqual(Object.getOwnPropertyDescriptor(PKC, 'getClientCapabilities'), { value: added, writable: true, enumerable: true, configurable: true });
  assert.equal(added.name, 'getClientCapabilities');
  assert.equal(win.Function.prototype.toString.call(added), 'function getClientCapabilities() { [native code] }');
  assert.equal(added(), 'answer');
});

test('showAsNative: a function reads as the browser\'s native method of that name', () => {
  const win = pageRealm();
  const fn = { get(options = undefined) { return options; } }.get;
  codec.pageShapes(win).showAsNative(fn, 'get');
  const toString = win.Function.prototype.toString;
  assert.equal(toString.call(fn), 'function get() { [native code] }');
  assert.equal(fn.name, 'get', 'name and length untouched');
});

test('stand-ins without Credential/AuthenticatorResponse get those members on the children, never on Object.prototype', () => {
  class PublicKeyCredential {}
  class AuthenticatorAttestationResponse {}
  class AuthenticatorAssertionResponse {}
  const env = { PublicKeyCredential, AuthenticatorAttestationResponse, AuthenticatorAssertionResponse };
  const cred = codec.buildCredential(getFrame, env);
  assert.equal(cred.id, b64('0102'));
  assert.equal(u8(cred.response.clientDataJSON), '7b7d');
  assert.ok(Object.hasOwn(PublicKeyCredential.prototype, 'id'));
  assert.ok(Object.hasOwn(AuthenticatorAttestationResponse.prototype, 'clientDataJSON'));
  assert.equal(Object.hasOwn(Object.prototype, 'id'), false);
  assert.equal(shapes.forWindow(env), shapes.forWindow(env), 'installed once per PublicKeyCredential.prototype');
  assert.equal(shapes.forWindow({}), null, 'no PublicKeyCredential (insecure context): nothing to build');
});

test('a malformed host reply is refused rather than half-built', () => {
  const win = pageRealm();
  assert.throws(() => codec.buildCredential({ ...getFrame, type: 'password' }, win), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, rawId: 'AQI' }, win), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, response: { ...getFrame.response, signature: undefined } }, win), TypeError);
  assert.throws(() => codec.buildCredential({ ...createFrame, response: { ...createFrame.response, publicKeyAlgorithm: 'x' } }, win), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, clientExtensionResults: { x: { __binary__: '+' } } }, win), TypeError);
});

test('an error frame becomes a real DOMException with the host name and message', () => {
  const env = { DOMException, TypeError };
  for (const name of ['NotAllowedError', 'InvalidStateError', 'SecurityError', 'NotSupportedError', 'AbortError', 'ConstraintError']) {
    const error = codec.buildError({ name, message: `because ${name}` }, env);
    assert.ok(error instanceof DOMException, name);
    assert.equal(error.name, name);
    assert.equal(error.message, `because ${name}`);
  }
  assert.equal(codec.buildError({ name: 'SecurityError', message: '' }, env).code, 18, 'legacy code follows the name');
});

test('RangeError is a DOMException named RangeError (code 0), as Chromium rejects over-long credential lists', () => {
  const error = codec.buildError({ name: 'RangeError', message: 'The `allowCredentials` attribute exceeds the maximum allowed size (64).' }, { DOMException, TypeError });
  assert.ok(error instanceof DOMException);
  assert.equal(error instanceof RangeError, false);
  assert.equal(error.name, 'RangeError');
  assert.equal(error.code, 0);
  assert.equal(Object.prototype.toString.call(error), '[object DOMException]');
});

test('TypeError stays a TypeError; timeouts and unknown names become NotAllowedError', () => {
  const env = { DOMException, TypeError };
  const typeError = codec.buildError({ name: 'TypeError', message: 'challenge is required' }, env);
  assert.ok(typeError instanceof TypeError);
  assert.equal(typeError.message, 'challenge is required');
  assert.equal(codec.buildError({ name: 'TimeoutError', message: 't' }, env).name, 'NotAllowedError');
  assert.equal(codec.buildError({ name: 'HackerError', message: 'x' }, env).name, 'NotAllowedError');
  assert.equal(codec.buildError(null, env).name, 'NotAllowedError');
});

test('in the page, codec.js then credential.js patch the prototypes at load, before any page script runs', () => {
  const win = pageRealm();
  const rawIdGetter = Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get;
  const toString = win.Function.prototype.toString;
  runInPage(win, 'page/codec.js', 'page/credential.js');
  assert.notEqual(Object.getOwnPropertyDescriptor(win.PublicKeyCredential.prototype, 'rawId').get, rawIdGetter, 'patched at load');
  assert.notEqual(win.Function.prototype.toString, toString);
  const pageCodec = win[Symbol.for('webauthn-bridge.codec')];
  const cred = pageCodec.buildCredential(getFrame, win);
  assert.equal(Object.getPrototypeOf(cred), win.PublicKeyCredential.prototype);
  assert.equal(cred.id, b64('0102'));
  assert.ok(cred.rawId instanceof win.ArrayBuffer, 'built by the page-realm codec: a page-realm ArrayBuffer');
  assert.equal(pageCodec.pageShapes(win), pageCodec.pageShapes({ PublicKeyCredential: win.PublicKeyCredential,
    AuthenticatorAttestationResponse: win.AuthenticatorAttestationResponse, AuthenticatorAssertionResponse: win.AuthenticatorAssertionResponse }),
  'the interceptor\'s env finds what was installed at load');
});
