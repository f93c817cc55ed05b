/*
 * tripwire.js — MAIN world, document_start, all frames, before interceptor.js (and in node, CommonJS).
 *
 * Where another extension's page script ran first and assigned its own create/get on navigator.credentials (a
 * password manager's), interceptor.js hands each modal request to that wrapper first and serves it itself only
 * when the wrapper hands it on to the browser's own function, of which the wrapper keeps a bound copy that no
 * script can put the bridge under. What tells is how the browser's own reads its argument: its WebIDL conversion
 * reads every member of `publicKey`, present or not, with [[Get]], in lexicographic order, synchronously, before
 * it shows anything, and rejects with whatever a getter throws (docs/measurements.md, "Beside a password manager").
 * So the wrapper gets options whose `publicKey` members are getters that note each read; the read that completes
 * such a run throws a private error (the browser's own rejects with it, no ceremony begun) and tells the bridge.
 *
 * A wrapper's own reads are no such run: it reads the few members it needs, in its own order. A copy (spread,
 * structuredClone, JSON) reads only the present members, in the order they were defined here (not lexicographic),
 * and never the absent ones, which are not enumerable. A wrapper that copies the options before handing them on
 * thus hands the browser's own a request the tripwire never sees: the browser's own serves it, as it would beside
 * that wrapper alone. Only a wrapper whose source the page can read is offered a request this way: one that shows
 * "[native code]" may be an isolated world's exported function (Firefox), which reads a page object through an Xray
 * that sees no getter at all.
 */
(function (root) {
  'use strict';

  const { create, defineProperty } = Object;
  const { apply, ownKeys } = Reflect;
  const functionSource = Function.prototype.toString;
  const NATIVE_SOURCE = /\{\s*\[native code\]\s*\}\s*$/;

  /** Whether `fn` is a wrapper written in page-world script, whose source the page can read. */
  function readableWrapper(fn) {
    try {
      return typeof fn === 'function' && !NATIVE_SOURCE.test(apply(functionSource, fn, []));
    } catch (_) {
      return false;
    }
  }

  /**
   * `converted` (an IDL value from page/webidl.js) as the options handed to the wrapper, and `tripped()`: whether the
   * browser's own has read them. `names` are the `publicKey` members in the browser's order
   * (webidl.publicKeyMembers); `error` is what the last read throws; `onTrip` runs once, in a microtask
   * (`queueMicrotask`), after the browser's own rejected. Everything else in `converted` is copied as it is.
   */
  function armed(converted, names, error, onTrip, queueMicrotask) {
    const publicKey = converted.publicKey;
    let next = 0;
    let tripped = false;
    const read = (index) => {
      if (index !== next) next = 0;
      if (index !== next) return;
      // A run is one synchronous stretch, as the browser's conversion is: the next turn starts over.
      if (next === 0) queueMicrotask(() => { next = 0; });
      next += 1;
      if (next < names.length) return;
      // Every run throws, not only the first: a wrapper that calls the browser's own again once it rejected (a retry)
      // would otherwise have it serve the request the bridge serves.
      if (!tripped) queueMicrotask(onTrip);
      tripped = true;
      throw error;
    };
    const members = create(null);
    // The present members in the reverse of the browser's order, enumerable, so that a copy reads them, though never
    // as a run; the absent ones not enumerable, so that only the browser's reading by name reaches them.
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i];
      const value = publicKey[name];
      defineProperty(members, name, {
        get: () => { read(i); return value; }, enumerable: value !== undefined, configurable: true,
      });
    }
    const options = create(null);
    const keys = ownKeys(converted);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      defineProperty(options, key, {
        value: key === 'publicKey' ? members : converted[key], writable: true, enumerable: true, configurable: true,
      });
    }
    return { options, tripped: () => tripped };
  }

  /**
   * Hands a request to the wrapper first (`call`, with the armed options): what it answers settles the page's
   * promise (`resolve`/`reject`) as it is, and so does the page's `signal`, at once; once it handed the request on
   * to the browser's own, `onHandedOn` runs instead and the wrapper's answer (the browser's rejection) is dropped.
   * `page`: the page's listen/unlisten, abortReason, follow (a promise's then) and queueMicrotask, as captured.
   */
  function offer({ call, converted, names, handedOn, onHandedOn, signal, resolve, reject }, page) {
    let settled = false;
    const end = () => {
      if (settled) return false;
      settled = true;
      if (signal) page.unlisten(signal, 'abort', onAbort);
      return true;
    };
    const settle = (settleWith) => (value) => {
      if (!wire.tripped() && end()) settleWith(value);
    };
    const onAbort = () => settle(reject)(page.abortReason(signal));
    // What throws while the bridge takes the request over (a page's replaced built-in) is the page's answer.
    const takeOver = () => {
      if (!end()) return;
      try { onHandedOn(); } catch (error) { reject(error); }
    };
    const wire = armed(converted, names, handedOn, takeOver, page.queueMicrotask);
    if (signal) page.listen(signal, 'abort', onAbort);
    let answer;
    try {
      answer = call(wire.options);
    } catch (error) {
      settle(reject)(error);
      return;
    }
    page.follow(answer, settle(resolve), settle(reject));
  }

  const tripwire = Object.freeze({ readableWrapper, armed, offer });

  if (typeof module === 'object' && module && module.exports) {
    module.exports = tripwire;
  } else {
    defineProperty(root, Symbol.for('webauthn-bridge.tripwire'), { value: tripwire, configurable: true, enumerable: false });
  }
})(globalThis);
