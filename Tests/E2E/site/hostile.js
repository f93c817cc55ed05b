// What a hostile document does to get a WebAuthn ceremony the browser would refuse it. Every call resolves to
// plain JSON: {ok, name, message} or {ok: false, stage: "deadline"} when the promise did not settle in time.
'use strict';

(function () {
  const CHANNEL = 'webauthn-bridge/v1';   // the relay's message format is public (extension/page/codec.js)
  const params = new URLSearchParams(location.search);

  /**
   * Rewrites what the page world's checks could consult: the permissions policy says yes, the user just
   * clicked, the page has focus and is visible, the top is same-origin, and Function.prototype.call lies for
   * the policy list (the trick that got a hostile cross-origin frame a credential in Chromium when the checks
   * lived in the page world).
   */
  function subvert() {
    const yes = { allowsFeature: () => true, features: () => [], allowedFeatures: () => ['publickey-credentials-get', 'publickey-credentials-create'], getAllowlistForFeature: () => ['*'] };
    for (const name of ['featurePolicy', 'permissionsPolicy']) {
      Object.defineProperty(Document.prototype, name, { get: () => yes, configurable: true });
    }
    Object.defineProperty(Navigator.prototype, 'userActivation', { get: () => ({ isActive: true, hasBeenActive: true }), configurable: true });
    Document.prototype.hasFocus = () => true;
    Object.defineProperty(Document.prototype, 'visibilityState', { get: () => 'visible', configurable: true });
    Object.defineProperty(Document.prototype, 'hidden', { get: () => false, configurable: true });
    const includes = Array.prototype.includes;
    const apply = Reflect.apply;
    // eslint-disable-next-line no-extend-native
    Function.prototype.call = function (thisArg, ...args) {
      if (this === includes) return false;   // "the policy does not list the feature"
      return apply(this, thisArg, args);
    };
    return true;
  }
  if (params.has('subvert')) subvert();

  const b64url = {
    decode(text) {
      const raw = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
      return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
    },
  };

  /** RP options JSON → what create()/get() take (BufferSources). */
  function publicKeyFrom(kind, json) {
    const ids = (list) => (list || []).map((c) => ({ ...c, id: b64url.decode(c.id) }));
    if (kind === 'create') {
      return { ...json, challenge: b64url.decode(json.challenge), user: { ...json.user, id: b64url.decode(json.user.id) }, excludeCredentials: ids(json.excludeCredentials) };
    }
    return { ...json, challenge: b64url.decode(json.challenge), allowCredentials: ids(json.allowCredentials) };
  }

  /** RP options JSON → the relay's wire form ({"__binary__": …} for bytes), as the page world would post it. */
  function wireFrom(kind, json) {
    const bin = (text) => ({ __binary__: text });
    const ids = (list) => (list || []).map((c) => ({ ...c, id: bin(c.id) }));
    if (kind === 'create') {
      return { ...json, challenge: bin(json.challenge), user: { ...json.user, id: bin(json.user.id) }, excludeCredentials: ids(json.excludeCredentials) };
    }
    return { ...json, challenge: bin(json.challenge), allowCredentials: ids(json.allowCredentials) };
  }

  function settleWithin(promise, ms) {
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve({ ok: false, stage: 'deadline' }), ms); });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  /** The API call, through whatever navigator.credentials is in this (possibly subverted) world. */
  function call({ kind, options, deadlineMs = 10000 }) {
    const started = performance.now();
    const attempt = navigator.credentials[kind]({ publicKey: publicKeyFrom(kind, options) }).then(
      (cred) => ({ ok: true, id: cred.id, clientData: JSON.parse(new TextDecoder().decode(cred.response.clientDataJSON)) }),
      (error) => ({ ok: false, name: error && error.name, message: String(error && error.message) }));
    return settleWithin(attempt, deadlineMs).then((r) => ({ ...r, elapsedMs: performance.now() - started }));
  }

  /** Skips the page world altogether: posts the relay's own message format, as any page script can. */
  function forge({ kind, options }) {
    const rid = 'forged-' + Math.random().toString(36).slice(2);
    window.postMessage({ channel: CHANNEL, dir: 'to-relay', kind: 'request', rid, type: kind, options: wireFrom(kind, options) }, '*');
    return { posted: rid, origin: window.origin };
  }

  // frameCalls (below) too, so a frame can frame another: A→B→A nesting.
  const actions = { call, forge, subvert: () => subvert(), frameCalls: (args) => frameCalls(args) };

  /** From the parent: {hostileCall: {action, args}} → {hostileReply: result}. '*' both ways: a sandboxed
   *  frame's origin is "null". */
  addEventListener('message', async (event) => {
    if (event.source !== parent || !event.data || !event.data.hostileCall) return;
    const { action, args } = event.data.hostileCall;
    const result = await actions[action](args);
    parent.postMessage({ hostileReply: result }, '*');
  });
  if (parent !== window) parent.postMessage({ hostileReady: true }, '*');

  /**
   * Puts a frame of `src` (sandbox / allow attributes as given) into this page and runs `calls` in it in order,
   * each as {action, args}; resolves to their results.
   */
  function frameCalls({ src, sandbox, allow, calls }) {
    return new Promise((resolve) => {
      const frame = document.createElement('iframe');
      if (sandbox !== undefined) frame.setAttribute('sandbox', sandbox);
      if (allow !== undefined) frame.allow = allow;
      const results = [];
      const timer = setTimeout(() => resolve({ error: 'no reply from the frame', results }), 30000);
      const next = () => {
        if (results.length === calls.length) {
          clearTimeout(timer);
          removeEventListener('message', onMessage);
          resolve({ results });
        } else {
          frame.contentWindow.postMessage({ hostileCall: calls[results.length] }, '*');
        }
      };
      function onMessage(event) {
        if (event.source !== frame.contentWindow || !event.data) return;
        if (event.data.hostileReady) next();
        else if ('hostileReply' in event.data) {
          results.push(event.data.hostileReply);
          next();
        }
      }
      addEventListener('message', onMessage);
      frame.src = src;
      document.body.appendChild(frame);
    });
  }

  window.hostile = { ...actions, frameCalls };
})();
