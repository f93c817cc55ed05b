/*
 * proxy-path.js — MAIN world, document_start, all frames, before interceptor.js (and in node, CommonJS).
 *
 * Chromium's proxy path, seen from the page: a request the bridge answers `proxy` goes through Chromium's own
 * function, whose call comes back to the bridge (background/proxy.js), which may hand it back at the user's word.
 * It then completes the proxied call with HANDED_BACK, detaches the proxy (Chromium hands nothing to its own UI
 * while attached), and says `another-way` here; in whichever order the two arrive, the request then goes below as
 * on the page path, and `below-done` tells the bridge when it has settled (the proxy is attached again). The page
 * never sees the hand-back: only Chromium rejects the call this script made, so no page can fake it.
 */
(function (root) {
  'use strict';

  const BELOW_KEY = Symbol.for('webauthn-bridge.below');
  // common/fallback-reasons.js's, which a classic script cannot import (fallback-reasons.test.mjs holds them equal).
  // The fallback reason that sends a request through Chromium's own function to its proxy path, and the name of the
  // error the bridge completes such a request with when the user hands it back (background/proxy.js).
  const PROXY = 'proxy';
  const HANDED_BACK = 'WebAuthnBridgeHandedBack';
  // The fallback reason that says such a call is about to end because the bridge lends the proxy to another tab's
  // request: this script takes the end for no answer and calls again when told `proxy` once more
  // (background/proxy.js).
  const CALL_AGAIN = 'call-again';
  const { apply, defineProperty } = Reflect;
  // page/below.js: in the page, found under its symbol (interceptor.js deletes it); in node, required.
  const inNode = typeof module === 'object' && module && module.exports;
  const { ANOTHER_WAY } = inNode ? require('./below.js') : root[BELOW_KEY];

  /**
   * The proxy path for `creds` (the page's CredentialsContainer): `env` and `page` as interceptor.js captured
   * them, `below` (page/below.js), `post` to the relay. `serves(reason)`: whether a `fallback` with that reason
   * goes this way; `call(entry)` makes the call; `onMessage(message)` takes the relay's messages about a request
   * whose call is out, and says whether it took one.
   */
  function proxyPath({ creds, codec, env, page, below, post }) {
    const { signalAborted, abortReason, listen, unlisten, errorName, promiseThen } = page;
    const { withTimeLeft, afterFocus, follow } = below;
    // Requests whose call of Chromium's own function its proxy path serves (rid → entry): the user may hand one back.
    const throughProxy = new Map();

    function callThroughProxy(entry) {
      throughProxy.set(entry.rid, entry);
      let call;
      try {
        call = apply(entry.original, creds, [withTimeLeft(entry)]);
      } catch (error) {
        throughProxy.delete(entry.rid);
        entry.reject(error);
        return;
      }
      const settle = (settleWith) => (value) => {
        throughProxy.delete(entry.rid);
        settleWith(value);
      };
      // The captured `then`: a page's Promise.prototype.then never sees the call's answer before the page does.
      follow(call, settle(entry.resolve), (error) => {
        let name = null;
        try { name = errorName(error); } catch (_) { name = null; }
        if (entry.interrupted && !(entry.signal && signalAborted(entry.signal))) return callAgainWhenTold(entry);
        if (name !== HANDED_BACK) return settle(entry.reject)(error);
        entry.handedBack = true;
        if (entry.toldBelow) handBack(entry);
      });
    }

    /** The call ended as the bridge lent the proxy to another tab's request: the page's promise stays pending until
     *  the bridge says `proxy` again (then the call is made anew), or the page aborts meanwhile. */
    function callAgainWhenTold(entry) {
      entry.interrupted = false;
      if (entry.toldProxy) {
        entry.toldProxy = false;
        return callThroughProxy(entry);
      }
      entry.waitingToCallAgain = true;
      const signal = entry.signal;
      if (!signal) return;
      const onAbort = () => {
        unlisten(signal, 'abort', onAbort);
        if (!entry.waitingToCallAgain) return;
        entry.waitingToCallAgain = false;
        throughProxy.delete(entry.rid);
        entry.reject(abortReason(signal));
      };
      if (signalAborted(signal)) onAbort();
      else listen(signal, 'abort', onAbort);
    }

    function proxiedMessage(entry, message) {
      if (message.kind === 'fallback' && message.reason === ANOTHER_WAY) {
        entry.toldBelow = true;
        if (entry.handedBack) handBack(entry);
      } else if (message.kind === 'fallback' && message.reason === CALL_AGAIN) {
        entry.interrupted = true;
        post({ kind: 'interrupted', rid: entry.rid });
      } else if (message.kind === 'fallback' && message.reason === PROXY) {
        if (!entry.waitingToCallAgain) entry.toldProxy = true;
        else {
          entry.waitingToCallAgain = false;
          callThroughProxy(entry);
        }
      } else if (message.kind === 'error') {
        // The extension stopped while the call was out: the call's own answer will not be awaited.
        throughProxy.delete(entry.rid);
        entry.reject(codec.buildError(message.error, env));
      }
    }

    function handBack(entry) {
      throughProxy.delete(entry.rid);
      afterFocus(entry, () => {
        let call;
        try {
          call = apply(entry.original, creds, [withTimeLeft(entry)]);
        } catch (error) {
          post({ kind: 'below-done', rid: entry.rid });
          entry.reject(error);
          return;
        }
        const done = (settleWith) => (value) => { post({ kind: 'below-done', rid: entry.rid }); settleWith(value); };
        follow(call, done(entry.resolve), done(entry.reject));
      });
    }

    return {
      // Without the page's own `then` and DOMException name captured, the hand-back could not be told: no proxy path.
      serves: (reason) => reason === PROXY && !!(promiseThen && errorName),
      call: callThroughProxy,
      onMessage(message) {
        const proxied = throughProxy.get(message.rid);
        if (!proxied) return false;
        proxiedMessage(proxied, message);
        return true;
      },
    };
  }

  const api = Object.freeze({ proxyPath, PROXY, HANDED_BACK, CALL_AGAIN });
  if (inNode) {
    module.exports = api;
    return;
  }
  defineProperty(root, Symbol.for('webauthn-bridge.proxy-path'), { value: api, configurable: true, enumerable: false });
})(globalThis);
