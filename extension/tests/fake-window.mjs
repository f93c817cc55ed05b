// A fake page window for page/interceptor.js's tests (interceptor.test.mjs, coexistence.test.mjs,
// tripwire.test.mjs): its own CredentialsContainer, PublicKeyCredential and responses, a relay to reply through, and
// another extension's wrapper to put beside the bridge.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { webcrypto } from 'node:crypto';

const require = createRequire(import.meta.url);
export const codec = require('../page/codec.js');
export const webidl = require('../page/webidl.js');
const { install } = require('../page/interceptor.js');
const tripwire = require('../page/tripwire.js');

/** `converting`: the browser's own create/get read their argument first, as the browser's conversion does
 *  (page/webidl.js, measured against both browsers), and reject with what that throws. */
export function fakeWindow({ capabilities, policy, top, activation, origin = 'https://example.com', browser = 'chromium', focused,
  beforeBridge, converting = false } = {}) {
  const convert = (op, options) => (converting ? webidl.convertOptions(op, options, browser) : options);
  class CredentialsContainer {
    create(options) {
      try { convert('create', options); } catch (error) { return Promise.reject(error); }
      win.nativeCalls.push(['create', this, options]);
      return Promise.resolve('native-create');
    }
    get(options) {
      try { convert('get', options); } catch (error) { return Promise.reject(error); }
      win.nativeCalls.push(['get', this, options]);
      return win.nativeAnswer ? win.nativeAnswer() : Promise.resolve('native-get');
    }
    store(c) { return Promise.resolve(c); }
    preventSilentAccess() { return Promise.resolve(); }
  }
  class PublicKeyCredential {
    static isUserVerifyingPlatformAuthenticatorAvailable() { return Promise.resolve(false); }
    static isConditionalMediationAvailable() { return Promise.resolve(true); }
  }
  if (capabilities) PublicKeyCredential.getClientCapabilities = () => Promise.resolve(capabilities);
  class AuthenticatorResponse {}
  class AuthenticatorAttestationResponse extends AuthenticatorResponse {}
  class AuthenticatorAssertionResponse extends AuthenticatorResponse {}
  const listeners = [];
  class Performance { now() { return win.now; } }
  // With `focused` given, the document says whether it has the focus, and the window's own events (focus) are kept
  // apart from the real EventTarget the signals use.
  class Document { hasFocus() { return win.focused; } }
  class WindowEventTarget {
    addEventListener(type, fn, options) {
      if (this !== win) return EventTarget.prototype.addEventListener.call(this, type, fn, options);
      (win.windowListeners[type] ||= []).push(fn);
    }
    removeEventListener(type, fn, options) {
      if (this !== win) return EventTarget.prototype.removeEventListener.call(this, type, fn, options);
      win.windowListeners[type] = (win.windowListeners[type] || []).filter((f) => f !== fn);
    }
  }
  const win = {
    now: 1000, performance: new Performance(), Performance,
    navigator: { credentials: new CredentialsContainer(), userActivation: activation },
    CredentialsContainer, PublicKeyCredential, AuthenticatorAttestationResponse, AuthenticatorAssertionResponse,
    DOMException, TypeError, AbortSignal, EventTarget: focused === undefined ? EventTarget : WindowEventTarget, Promise,
    crypto: webcrypto, setTimeout, clearTimeout, queueMicrotask, origin, focused, windowListeners: {},
    Document: focused === undefined ? undefined : Document,
    location: { origin: 'https://example.com' },
    document: Object.assign(focused === undefined ? {} : new Document(), policy ? { featurePolicy: policy } : {}),
    posted: [], nativeCalls: [],
    postMessage(data, target) { win.posted.push({ data: structuredClone(data), target }); },
    addEventListener(type, fn) { if (type === 'message') listeners.push(fn); },
    /** Delivers a message as if the relay posted it into this window (or another window as source). */
    deliver(data, source = win) {
      let stopped = false;
      for (const fn of listeners) fn({ source, data, stopImmediatePropagation() { stopped = true; } });
      return stopped;
    },
    reply(rid, message) { return win.deliver({ channel: codec.CHANNEL, dir: 'to-page', rid, ...message }); },
  };
  win.top = top || win;
  if (beforeBridge) beforeBridge(win);   // another extension's page script that ran first
  assert.equal(install(win, codec, webidl, browser, tripwire), true);
  return win;
}

export const b = (hex) => ({ __binary__: Buffer.from(hex, 'hex').toString('base64url') });
export const assertionFrame = {
  type: 'public-key', id: 'AQI', rawId: b('0102'), authenticatorAttachment: 'cross-platform',
  response: { clientDataJSON: b('7b7d'), authenticatorData: b('aa'), signature: b('30'), userHandle: null },
  clientExtensionResults: {},
};
export const getOptions = () => ({ publicKey: { challenge: new Uint8Array([1, 2, 3]), rpId: 'example.com' } });
export const createOptions = () => ({
  publicKey: { challenge: new ArrayBuffer(4), rp: { name: 'x' }, user: { id: new Uint8Array(1), name: 'n', displayName: 'd' }, pubKeyCredParams: [] },
});
export const tick = () => new Promise((r) => setImmediate(r));

/** A password manager's page script as Bitwarden and Proton Pass write it: what it found, bound; its own create/get
 *  assigned on navigator.credentials itself; requests for `rpId` served, the rest handed to what it found. */
export function wrapperLike(win, rpId) {
  const creds = win.navigator.credentials;
  const found = { create: creds.create.bind(creds), get: creds.get.bind(creds) };
  const served = [];
  const wrap = (kind) => function (options) {
    const mine = options && options.publicKey && (options.publicKey.rpId || (options.publicKey.rp && options.publicKey.rp.id)) === rpId;
    if (!mine) return found[kind](options);
    served.push([kind, options.mediation]);
    return Promise.resolve(`manager-${kind}`);
  };
  creds.create = wrap('create');
  creds.get = wrap('get');
  return served;
}
