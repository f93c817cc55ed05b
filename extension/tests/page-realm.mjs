// A stand-in page realm for node tests of page/credential.js and of the page world's loading (syntax.test.mjs): a
// fresh vm context (its own Function.prototype, Object.prototype …) holding WebAuthn interfaces declared the way
// WebIDL declares them in Chromium 156 and Firefox 153: attributes as enumerable, configurable getters without
// setters, operations as enumerable, writable, configurable methods, Symbol.toStringTag on each prototype, no own
// properties on instances. Their members refuse any receiver the realm did not make itself, like the browsers'
// ("Illegal invocation").
import vm from 'node:vm';
import { readFileSync } from 'node:fs';

const REALM_SOURCE = String.raw`
'use strict';
const slots = new WeakMap();
function illegal() { throw new TypeError('Illegal invocation'); }
function slotOf(self) { const slot = slots.get(self); if (slot === undefined) illegal(); return slot; }

function declare(name, parent, attributes, operations, statics = {}) {
  const ctor = { [name]: function () { throw new TypeError('Illegal constructor'); } }[name];
  if (parent) Object.setPrototypeOf(ctor, parent);
  ctor.prototype = Object.create(parent ? parent.prototype : Object.prototype, {
    constructor: { value: ctor, writable: true, enumerable: false, configurable: true },
  });
  Object.defineProperty(ctor, 'prototype', { writable: false, enumerable: false, configurable: false });
  for (const key of attributes) {
    const get = Object.getOwnPropertyDescriptor({ get [key]() { return slotOf(this)[key]; } }, key).get;
    Object.defineProperty(ctor.prototype, key, { get, enumerable: true, configurable: true });
  }
  for (const key of operations) {
    const value = { [key]() { return slotOf(this)[key](); } }[key];
    Object.defineProperty(ctor.prototype, key, { value, writable: true, enumerable: true, configurable: true });
  }
  for (const [key, fn] of Object.entries(statics)) {
    Object.defineProperty(ctor, key, { value: fn, writable: true, enumerable: true, configurable: true });
  }
  Object.defineProperty(ctor.prototype, Symbol.toStringTag, { value: name, writable: false, enumerable: false, configurable: true });
  globalThis[name] = ctor;
  return ctor;
}

const Credential = declare('Credential', null, ['id', 'type'], []);
declare('PublicKeyCredential', Credential, ['rawId', 'response', 'authenticatorAttachment'],
  ['getClientExtensionResults', 'toJSON'], {
    getClientCapabilities: { getClientCapabilities() { return Promise.resolve({ conditionalGet: true, 'extension:prf': true }); } }.getClientCapabilities,
    isUserVerifyingPlatformAuthenticatorAvailable: { isUserVerifyingPlatformAuthenticatorAvailable() { return Promise.resolve(false); } }.isUserVerifyingPlatformAuthenticatorAvailable,
  });
const AuthenticatorResponse = declare('AuthenticatorResponse', null, ['clientDataJSON'], []);
declare('AuthenticatorAttestationResponse', AuthenticatorResponse, ['attestationObject'],
  ['getTransports', 'getAuthenticatorData', 'getPublicKey', 'getPublicKeyAlgorithm']);
declare('AuthenticatorAssertionResponse', AuthenticatorResponse, ['authenticatorData', 'signature', 'userHandle'], []);

// A credential the realm itself made (what the browser's own WebAuthn returns).
globalThis.makeNativeCredential = function (id) {
  const response = Object.create(AuthenticatorAssertionResponse.prototype);
  slots.set(response, { clientDataJSON: new ArrayBuffer(1), authenticatorData: new ArrayBuffer(2), signature: new ArrayBuffer(3), userHandle: null });
  const credential = Object.create(PublicKeyCredential.prototype);
  slots.set(credential, {
    id, type: 'public-key', rawId: new ArrayBuffer(4), response, authenticatorAttachment: 'cross-platform',
    getClientExtensionResults: () => ({}), toJSON: () => ({ id, native: true }),
  });
  return credential;
};
`;

/** A new realm with the interfaces; returns its global (what the page's `window` is to credential.js). */
const contexts = new WeakMap(); // a realm's global → its vm context

export function pageRealm() {
  const context = vm.createContext({});
  vm.runInContext(REALM_SOURCE, context);
  const win = vm.runInContext('globalThis', context);
  contexts.set(win, context);
  return win;
}


/** Runs extension files in the realm as the browser runs content scripts in the page's MAIN world (no `module`). */
export function runInPage(win, ...files) {
  for (const file of files) vm.runInContext(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'), contexts.get(win), { filename: file });
}

/** Runs `source` in the realm, as a page script would: what the page declares before the extension's scripts run. */
export function runPageScript(win, source) {
  return vm.runInContext(source, contexts.get(win));
}
