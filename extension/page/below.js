/*
 * below.js — MAIN world, document_start, all frames, before interceptor.js (and in node, CommonJS).
 *
 * What the bridge does when it hands a page's request to the function below it (the browser's own, or another
 * extension's wrapper found there): it hands on what is left of the page's time, waits for the focus a handed-on
 * request needs, and follows what that function answers through the page's `then` as captured at install, never one
 * a page script put there since. Used by ceremony.js and proxy-path.js; interceptor.js hands it the captured page.
 */
(function (root) {
  'use strict';

  // The fallback reason of a request the user handed on in the security-key window: common/fallback-reasons.js's,
  // which a classic script cannot import (fallback-reasons.test.mjs holds them equal).
  const ANOTHER_WAY = 'another-way';
  // How long a handed-on request without a timeout waits for the focus: the browsers' own default (5 minutes).
  const FOCUS_WAIT_DEFAULT_MS = 300000;
  const { apply, defineProperty: reflectDefine, deleteProperty } = Reflect;
  const { max, round } = Math;
  const { getOwnPropertyDescriptor } = Object;

  /** The helpers for `win`, over `page`: its clock, focus, timers, listen/unlisten and `then` (interceptor.js). */
  function handBelow(win, page) {
    const { clock, hasFocus, setTimer, clearTimer, listen, unlisten, promiseThen } = page;

    /** The request's options with `publicKey.timeout` less the time the bridge held it: what is below the bridge
     *  gets what is left of the page's time, not a fresh start. No timeout stays none (the browser's default). */
    function withTimeLeft(entry) {
      const publicKey = entry.options.publicKey;
      if (!publicKey || typeof publicKey.timeout !== 'number') return entry.options;
      const left = max(1, round(publicKey.timeout - (clock() - entry.startedAt)));
      return { __proto__: null, ...entry.options, publicKey: { __proto__: null, ...publicKey, timeout: left } };
    }

    /**
     * `go` once this top-level document has the focus again: the user's choice closed the security-key window, and
     * the browser gives the focus back a moment later, while the browsers' own WebAuthn refuses a document without
     * it (Firefox's "CredentialsContainer request is not allowed.", Chromium's create). A frame, whose own document
     * does not get the focus its top does, goes at once; so does every request when its time is up or its signal
     * aborts (the browser's own then answers as it would).
     */
    function afterFocus(entry, go) {
      if (win.top !== win || hasFocus()) return go();
      let timer = null;
      const once = () => {
        if (timer === null) return;
        apply(clearTimer, win, [timer]);
        timer = null;
        unlisten(win, 'focus', once, true);
        if (entry.signal) unlisten(entry.signal, 'abort', once);
        go();
      };
      const publicKey = entry.options.publicKey;
      const limit = publicKey && typeof publicKey.timeout === 'number' ? publicKey.timeout : FOCUS_WAIT_DEFAULT_MS;
      timer = apply(setTimer, win, [once, max(0, limit - (clock() - entry.startedAt))]);
      listen(win, 'focus', once, true);
      if (entry.signal) listen(entry.signal, 'abort', once);
    }

    /** `onResolved`/`onRejected` for what the function below returned: a promise of this page (the browser's own,
     *  or a wrapper's), else the value itself. A promise's `then` reads its `constructor`, which a page may have made
     *  throw (so that the call itself, with its answer, settled the page's promise): for the call, an own
     *  `constructor` of undefined has it use the browser's own Promise, reading nothing of the page's. */
    function follow(call, onResolved, onRejected) {
      let shielded = false;
      try {
        shielded = call !== null && (typeof call === 'object' || typeof call === 'function')
          && getOwnPropertyDescriptor(call, 'constructor') === undefined
          && reflectDefine(call, 'constructor', { value: undefined, configurable: true });
        promiseThen(call, onResolved, onRejected);
      } catch (_) {
        onResolved(call);
      } finally {
        if (shielded) deleteProperty(call, 'constructor');
      }
    }

    return { withTimeLeft, afterFocus, follow };
  }

  const api = Object.freeze({ ANOTHER_WAY, handBelow });
  if (typeof module === 'object' && module && module.exports) {
    module.exports = api;
    return;
  }
  reflectDefine(root, Symbol.for('webauthn-bridge.below'), { value: api, configurable: true, enumerable: false });
})(globalThis);
