/*
 * ceremony.js — MAIN world, document_start, all frames, before interceptor.js (and in node, CommonJS).
 *
 * The bridge's own ceremony and its messages with the relay (content/relay.js, over window.postMessage): a modal
 * request with the time the page has left, one pending per frame as in both browsers; the relay's replies, which
 * settle it with a PublicKeyCredential or an error, or send it below the bridge (`fallback`: host missing, site
 * switched off, the user chose another way, Chromium's proxy path); and the page's questions to the background
 * (`capabilities`, and `when-detached` for a conditional get while Chromium's proxy is attached).
 *
 * It trusts nothing it receives: relay replies are shape-checked (codec.parseRelayMessage), and the origin is added
 * by the background from the browser's sender record, never from here.
 */
(function (root) {
  'use strict';

  const BELOW_KEY = Symbol.for('webauthn-bridge.below');
  const CAPABILITIES_TIMEOUT_MS = 1500;
  const { apply, defineProperty } = Reflect;
  // page/below.js: in the page, found under its symbol (interceptor.js deletes it); in node, required.
  const inNode = typeof module === 'object' && module && module.exports;
  const { ANOTHER_WAY } = inNode ? require('./below.js') : root[BELOW_KEY];

  /**
   * The ceremonies of `win` for `creds` (the page's CredentialsContainer): `env` and `page` as interceptor.js
   * captured them, `below` (page/below.js), `proxy` (page/proxy-path.js), `post` to the relay. `onMessage` is for
   * the window's `message` events, which interceptor.js listens to.
   */
  function ceremonies({ win, creds, codec, webidl, env, browser, page, below, proxy, post }) {
    const { signalAborted, abortReason, listen, unlisten, setTimer, clearTimer } = page;
    const { Promise: PromiseCtor, crypto: cryptoObj } = page;
    const { withTimeLeft, afterFocus } = below;
    // One pending modal request per frame, as in both browsers.
    let pending = null;
    const capabilityWaiters = new Map();
    const detachWaiters = new Map();

    function finish(entry) {
      if (pending === entry) pending = null;
      if (entry.signal) unlisten(entry.signal, 'abort', entry.onAbort);
    }

    /** The bridge's own ceremony for `entry`: its request to the relay, with the time the page has left. */
    function ceremony(entry) {
      const signal = entry.signal;
      if (signal && signalAborted(signal)) return entry.reject(abortReason(signal));
      if (pending) {
        // Chromium refuses a second request while one is pending; Firefox aborts the first and serves the second.
        if (browser !== 'firefox') return entry.reject(new env.DOMException('A request is already pending.', 'NotAllowedError'));
        const previous = pending;
        finish(previous);
        post({ kind: 'cancel', rid: previous.rid });
        previous.reject(codec.buildError({ name: 'AbortError' }, env, browser));
      }
      const request = codec.buildRequest(entry.type, (entry.handedOn ? withTimeLeft(entry) : entry.options).publicKey, webidl);
      const rid = codec.newRequestId(cryptoObj);
      entry.rid = rid;
      entry.onAbort = () => {
        if (pending !== entry) return;
        finish(entry);
        post({ kind: 'cancel', rid });
        entry.reject(abortReason(signal));
      };
      pending = entry;
      if (signal) listen(signal, 'abort', entry.onAbort);
      const mediation = entry.conditional ? { mediation: 'conditional' } : {};
      post({ kind: 'request', rid, type: request.type, options: request.options, ...mediation });
    }

    function onMessage(event) {
      if (event.source !== win) return;
      const message = codec.parseRelayMessage(event.data);
      if (!message) return;
      // Our own traffic: keep it away from the page's message handlers.
      event.stopImmediatePropagation();
      if (message.kind === 'capabilities') {
        const waiter = capabilityWaiters.get(message.rid);
        if (waiter) waiter({ capabilities: message.capabilities, proxyAttached: message.proxyAttached === true });
        return;
      }
      if (message.kind === 'detached') {
        const waiter = detachWaiters.get(message.rid);
        if (waiter) waiter();
        return;
      }
      if (proxy.onMessage(message)) return;
      const entry = pending;
      if (!entry || entry.rid !== message.rid) return;
      finish(entry);
      if (message.kind === 'result') {
        let credential;
        try {
          credential = codec.buildCredential(message.credential, env);
        } catch (error) {
          entry.reject(new env.DOMException('The security key bridge sent a malformed reply.', 'NotAllowedError'));
          return;
        }
        entry.resolve(credential);
      } else if (message.kind === 'error') {
        entry.reject(codec.buildError(message.error, env, browser));
      } else if (message.kind === 'fallback') {
        // Host missing, site switched off, or the user chose another way in the security-key window: the function
        // below the bridge (the browser's own WebAuthn, or another extension's wrapper) gets this very request —
        // the page's converted options, its signal, and the time it has left.
        const goBelow = () => {
          try {
            entry.resolve(apply(entry.original, creds, [withTimeLeft(entry)]));
          } catch (error) {
            entry.reject(error);
          }
        };
        if (message.reason === ANOTHER_WAY) afterFocus(entry, goBelow);
        else if (proxy.serves(message.reason)) proxy.call(entry);
        else goBelow();
      }
    }

    /** The background's `capabilities` answer ({capabilities, proxyAttached}), or null without one in time. */
    function askCapabilities() {
      const rid = codec.newRequestId(cryptoObj);
      return new PromiseCtor((resolve) => {
        const noAnswer = () => { capabilityWaiters.delete(rid); resolve(null); };
        const timer = apply(setTimer, win, [noAnswer, CAPABILITIES_TIMEOUT_MS]);
        capabilityWaiters.set(rid, (answer) => {
          apply(clearTimer, win, [timer]);
          capabilityWaiters.delete(rid);
          resolve(answer);
        });
        post({ kind: 'capabilities', rid });
      });
    }

    /**
     * A conditional get for the browser's own. While Chromium's proxy is attached (the bridge serves a request),
     * Chromium refuses every one at once: a password manager above the bridge that races its own answer against this
     * call (Bitwarden's does) would lose to that refusal. So, the proxy attached (the background says), it waits, as
     * the browser's own does when it has no passkey to offer, until the background says the proxy is detached (then
     * it goes to the browser's own) or the page aborts it; otherwise it goes to the browser's own at once.
     */
    function conditionalGet(original, converted) {
      const signal = converted.signal;
      if (signal && signalAborted(signal)) return apply(original, creds, [converted]);
      return new PromiseCtor((resolve, reject) => {
        // An async function's await, not a `then` the page may have replaced.
        (async () => {
          const answer = await askCapabilities();
          const goBelow = () => {
            try { resolve(apply(original, creds, [converted])); } catch (error) { reject(error); }
          };
          if (!answer || answer.proxyAttached !== true) return goBelow();
          const rid = codec.newRequestId(cryptoObj);
          const onAbort = () => {
            detachWaiters.delete(rid);
            reject(abortReason(signal));
          };
          detachWaiters.set(rid, () => {
            detachWaiters.delete(rid);
            if (signal) unlisten(signal, 'abort', onAbort);
            goBelow();
          });
          if (signal && signalAborted(signal)) return reject(abortReason(signal));
          if (signal) listen(signal, 'abort', onAbort);
          post({ kind: 'when-detached', rid });
        })();
      });
    }

    return { ceremony, onMessage, askCapabilities, conditionalGet };
  }

  const api = Object.freeze({ ceremonies });
  if (inNode) {
    module.exports = api;
    return;
  }
  defineProperty(root, Symbol.for('webauthn-bridge.ceremony'), { value: api, configurable: true, enumerable: false });
})(globalThis);
