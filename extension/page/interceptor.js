/*
 * interceptor.js — MAIN world, document_start, all frames, last of webidl-types.js, webidl.js, codec.js,
 * credential.js, tripwire.js, on-top.js, below.js, proxy-path.js, ceremony.js.
 *
 * Replaces CredentialsContainer.prototype.create/get (on the container itself where another extension's wrapper
 * that ran first put its own; the existing navigator.credentials object keeps its identity, so store() and
 * preventSilentAccess() still work) with functions that convert the options as the browser does (page/webidl.js)
 * and serve modal publicKey requests through the bridge's own ceremony (page/ceremony.js). Everything else — no
 * publicKey, mediation other than modal, uiMode "immediate", other kinds of credential, host missing, per-site
 * switch, Chromium's proxy path — is handed to the functions found there before patching (the browser's, or
 * another extension's wrapper), with the converted options (so no page getter runs twice; page/below.js). Such a
 * wrapper, where it ran first, gets modal requests first too (page/tripwire.js). So is a request the user hands on
 * in the security-key window ("another way"), with the page's signal and the time it has left, once the document
 * has the focus back; on Chromium's proxy path, after the bridge handed the proxied call back (page/proxy-path.js).
 * A conditional get for the browser's own waits instead while Chromium's proxy is attached, which would refuse it
 * at once (ceremony.js conditionalGet).
 *
 * Page-side flag for tests: navigator.credentials.create.__webauthnBridge === true (also on get).
 *
 * The page's built-ins that the others call at request time (then, postMessage, listeners, timers, the signal's
 * getters, …) are captured here, at install, before any page script runs, and handed to them (capturePage): what a
 * page script later puts in their place is never called. This world decides nothing: whether this document may run
 * a ceremony at all (opaque origin, permissions policy, user activation, ancestors, focus) is decided by the relay's
 * isolated world and the background (common/frame-rules.js), which this world's script cannot reach.
 */
(function (root) {
  'use strict';

  const KEYS = {
    codec: Symbol.for('webauthn-bridge.codec'),
    webidl: Symbol.for('webauthn-bridge.webidl'),
    webidlTypes: Symbol.for('webauthn-bridge.webidl-types'),
    tripwire: Symbol.for('webauthn-bridge.tripwire'),
    onTop: Symbol.for('webauthn-bridge.on-top'),
    below: Symbol.for('webauthn-bridge.below'),
    proxyPath: Symbol.for('webauthn-bridge.proxy-path'),
    ceremony: Symbol.for('webauthn-bridge.ceremony'),
  };
  const { apply } = Reflect;
  const { getOwnPropertyDescriptor } = Object;
  // The page-world parts this one wires: in the page, handed over as codec and webidl are; in node, required.
  const inNode = typeof module === 'object' && module && module.exports;
  const part = (file, key) => (inNode ? require(file) : root[key]);
  const onTop = part('./on-top.js', KEYS.onTop);
  const { handBelow } = part('./below.js', KEYS.below) || {};
  const { proxyPath } = part('./proxy-path.js', KEYS.proxyPath) || {};
  const { ceremonies } = part('./ceremony.js', KEYS.ceremony) || {};

  /** `proto[key]`'s getter or method as a plain function of (receiver, ...args), or null. */
  function captured(proto, key) {
    const d = proto ? getOwnPropertyDescriptor(proto, key) : undefined;
    const fn = d && (d.get || d.value);
    return typeof fn === 'function' ? (self, ...args) => apply(fn, self, args) : null;
  }

  /** The page's CredentialsContainer, through the browser's own `navigator.credentials` getter: a wrapper that
   *  ran first may have put an object of its own at `navigator.credentials` (KeePassXC-Browser does), and calls the
   *  container's functions from there, so the bridge patches the container, not that object. */
  function containerOf(win) {
    const getter = captured(win.Navigator && win.Navigator.prototype, 'credentials');
    const nav = win.navigator;
    if (!nav) return null;
    return getter ? getter(nav) : nav.credentials;
  }

  /** The page's built-ins the bridge uses at request time, captured now, before any page script can replace them;
   *  `post` sends a message to the relay. */
  function capturePage(win, codec) {
    const PromiseCtor = win.Promise;
    const env = {
      PublicKeyCredential: win.PublicKeyCredential,
      AuthenticatorAttestationResponse: win.AuthenticatorAttestationResponse,
      AuthenticatorAssertionResponse: win.AuthenticatorAssertionResponse,
      DOMException: win.DOMException,
      TypeError: win.TypeError,
      AbortSignal: win.AbortSignal,
    };
    const postMessage = win.postMessage;
    // A page's request runs after page scripts did what they liked to these prototypes: read through the natives.
    const signalProto = win.AbortSignal && win.AbortSignal.prototype;
    const eventTargetProto = win.EventTarget && win.EventTarget.prototype;
    const signalReason = captured(signalProto, 'reason') || ((signal) => signal.reason);
    const performanceObj = win.performance;
    const performanceNow = captured(win.Performance && win.Performance.prototype, 'now');
    const doc = win.document;
    const documentHasFocus = captured(win.Document && win.Document.prototype, 'hasFocus');
    const microtask = win.queueMicrotask;
    // window.origin, not location.origin: a sandboxed document's location names its URL's origin, and a message
    // targeted there would be dropped by its own opaque window, leaving the promise unsettled.
    const selfOrigin = win.origin && win.origin !== 'null' ? win.origin : '*';
    return {
      env,
      Promise: PromiseCtor,
      rejected: (error) => new PromiseCtor((resolve, reject) => reject(error)),
      addEventListener: win.addEventListener,
      signalAborted: captured(signalProto, 'aborted') || ((signal) => signal.aborted),
      abortReason(signal) {
        const reason = signalReason(signal);
        return reason !== undefined ? reason : new env.DOMException('The operation was aborted.', 'AbortError');
      },
      listen: captured(eventTargetProto, 'addEventListener') || ((t, ...a) => t.addEventListener(...a)),
      unlisten: captured(eventTargetProto, 'removeEventListener') || ((t, ...a) => t.removeEventListener(...a)),
      promiseThen: captured(PromiseCtor.prototype, 'then'),
      errorName: captured(win.DOMException && win.DOMException.prototype, 'name'),
      clock: performanceObj && performanceNow ? () => performanceNow(performanceObj) : () => Date.now(),
      hasFocus: () => (doc && documentHasFocus ? documentHasFocus(doc) === true : true),
      setTimer: win.setTimeout,
      clearTimer: win.clearTimeout,
      crypto: win.crypto,
      queueMicrotask: (task) => apply(microtask, win, [task]),
      post(message) {
        apply(postMessage, win, [{ channel: codec.CHANNEL, dir: 'to-relay', ...message }, selfOrigin]);
      },
    };
  }

  /** `browser` ("chromium" or "firefox") picks the conversions' member sets and texts; the page's engine tells.
   *  `tripwire` (page/tripwire.js) offers a wrapper that ran first each modal request first; none, the bridge's own. */
  function install(win, codec, webidl, browser = webidl.browserOf(win), tripwire = null) {
    const creds = containerOf(win);
    const PKC = win.PublicKeyCredential;
    // Insecure contexts have no navigator.credentials / PublicKeyCredential: nothing to bridge.
    if (!creds || typeof PKC !== 'function') return false;
    const proto = Object.getPrototypeOf(creds);
    // What the page would call now, which the bridge calls for whatever it does not serve: the browser's own, or
    // the function another extension's page script put there before this one ran
    // (docs/extension.md, "Beside password managers").
    const originalCreate = creds.create;
    const originalGet = creds.get;
    if (typeof originalCreate !== 'function' || typeof originalGet !== 'function') return false;
    // A wrapper in page script that assigned its own there gets each modal request first (page/tripwire.js).
    const browsersOwn = { create: proto.create, get: proto.get };
    const first = (name) => Boolean(tripwire) && Object.prototype.hasOwnProperty.call(creds, name)
      && tripwire.readableWrapper(creds[name]);
    const wrapperFirst = { create: first('create'), get: first('get') };
    // Where that is a wrapper that ran first, what it puts back when torn down goes here instead (page/on-top.js).
    const below = { create: originalCreate, get: originalGet };

    const page = capturePage(win, codec);
    const { env, signalAborted, abortReason, rejected, post } = page;
    const toBelow = handBelow(win, page);
    const pageHooks = { listen: page.listen, unlisten: page.unlisten, abortReason, follow: toBelow.follow,
      queueMicrotask: page.queueMicrotask };
    const proxy = proxyPath({ creds, codec, env, page, below: toBelow, post });
    const relay = ceremonies({ win, creds, codec, webidl, env, browser, page, below: toBelow, proxy, post });

    // What the bridge hands a conditional get to is the browser's own: the prototype's function, not one a wrapper
    // that ran first assigned on the container.
    let getBelowIsBrowsers = !Object.prototype.hasOwnProperty.call(creds, 'get');
    // Set while the bridge calls what was put back below it (page/on-top.js): a call that comes straight back from
    // there (a bound copy of the bridge's own, which reads as the browser's too) goes to the browser's own, not round
    // again (a stack overflow, or a fallback served again and again).
    let callingPutBack = 0;

    function start(type, original, thisArg, options) {
      if (callingPutBack) return apply(browsersOwn[type], thisArg, [options]);
      // A wrong `this` gets the original's own TypeError.
      if (thisArg !== creds) return apply(original, thisArg, [options]);
      // Converted first, as the browser does before anything else: a TypeError, or a page getter's own
      // exception, rejects as it would in the browser.
      let converted;
      try {
        converted = webidl.convertOptions(type, options, browser);
      } catch (error) {
        return rejected(error);
      }
      const conditional = webidl.announcedAsConditional(type, converted, browser);
      if (!conditional && !webidl.bridgeServes(type, converted, browser)) {
        return type === 'get' && converted.mediation === 'conditional' && getBelowIsBrowsers
          ? relay.conditionalGet(original, converted) : apply(original, creds, [converted]);
      }
      const signal = converted.signal;
      if (signal && signalAborted(signal)) return rejected(abortReason(signal));
      const refusal = webidl.browserRefusal(type, converted, browser, codec.toBase64url);
      if (refusal) return rejected(new env.DOMException(refusal[1], refusal[0]));
      return new page.Promise((resolve, reject) => {
        const startedAt = page.clock();
        const entry = { type, original, options: converted, signal, conditional, resolve, reject, startedAt };
        if (!wrapperFirst[type]) return relay.ceremony(entry);
        // Handed on to the browser's own: the bridge serves it, and hands below to the browser's own.
        tripwire.offer({
          call: (options) => apply(original, creds, [options]), converted, signal, resolve, reject,
          names: webidl.publicKeyMembers(type, browser),
          handedOn: new env.DOMException('The security key bridge serves this request.', 'NotAllowedError'),
          onHandedOn() {
            entry.original = browsersOwn[type];
            entry.handedOn = true;
            relay.ceremony(entry);
          },
        }, pageHooks);
      });
    }
    apply(page.addEventListener, win, ['message', relay.onMessage, true]);

    // Method shorthand: named create/get, no prototype, not constructible, length 0 — like the natives.
    const patched = {
      create(options = undefined) { return start('create', below.create, this, options); },
      get(options = undefined) { return start('get', below.get, this, options); },
    };
    const shapes = codec.pageShapes(env);
    for (const name of ['create', 'get']) {
      Object.defineProperty(patched[name], '__webauthnBridge', { value: true });
      // Read as the browser's own method ("function get() { [native code] }"), as the other replaced members do:
      // a script that checks for a wrapper that way (a password manager's, a site's) finds none.
      shapes.showAsNative(patched[name], name);
      // On the prototype, where the browser's are; on the container itself when a wrapper that ran first assigned
      // its own there (password managers do), which would otherwise hide the bridge from every call.
      // There, behind an accessor that keeps it on top when that wrapper is torn down (page/on-top.js).
      if (Object.prototype.hasOwnProperty.call(creds, name) && onTop) {
        onTop.keepOnTop(creds, name, patched[name], browsersOwn[name], (putBack) => {
          below[name] = function (options) {
            callingPutBack += 1;
            try {
              return apply(putBack, this, [options]);
            } finally {
              callingPutBack -= 1;
            }
          };
          wrapperFirst[name] = false;
          if (name === 'get') getBelowIsBrowsers = true;
        }, shapes.showAsNative);
      } else {
        const home = Object.prototype.hasOwnProperty.call(creds, name) ? creds : proto;
        Object.defineProperty(home, name, { value: patched[name], writable: true, enumerable: true, configurable: true });
      }
    }

    const originalCapabilities = typeof PKC.getClientCapabilities === 'function' ? PKC.getClientCapabilities : null;
    async function clientCapabilities() {
      let browserCaps = {};
      if (originalCapabilities) {
        try { browserCaps = await apply(originalCapabilities, PKC, []); } catch (_) { browserCaps = {}; }
      }
      const answer = await relay.askCapabilities();
      return codec.mergeCapabilities(browserCaps, answer && answer.capabilities);
    }
    // Dressed as the browser's own static (descriptor, name, length, source; a plain function, since an async
    // one would have AsyncFunction.prototype): page/credential.js replaceStatic.
    shapes.replaceStatic(PKC, 'getClientCapabilities', () => clientCapabilities());
    return true;
  }

  if (inNode) {
    module.exports = { install };
    return;
  }
  const codec = root[KEYS.codec];
  const webidl = root[KEYS.webidl];
  const tripwire = root[KEYS.tripwire];
  for (const key of Object.values(KEYS)) delete root[key];
  if (codec && webidl && handBelow && proxyPath && ceremonies) {
    install(root, codec, webidl, webidl.browserOf(root), tripwire);
  }
})(globalThis);
