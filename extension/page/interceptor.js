/*
 * interceptor.js — MAIN world, document_start, all frames, last of webidl.js, codec.js, credential.js, tripwire.js,
 * on-top.js.
 *
 * Replaces CredentialsContainer.prototype.create/get (on the container itself where another extension's wrapper
 * that ran first put its own; the existing navigator.credentials object keeps its identity, so store() and
 * preventSilentAccess() still work) with functions that convert the options as the browser does (page/webidl.js),
 * send modal publicKey requests to the relay (content/relay.js) over window.postMessage and rebuild the host's
 * reply as a PublicKeyCredential. Everything else — no publicKey, mediation other than modal, uiMode "immediate",
 * other kinds of credential, host missing, per-site switch, Chromium's proxy path — is handed to the functions
 * found there before patching (the browser's, or another extension's wrapper), with the converted options (so no
 * page getter runs twice). Such a wrapper, where it ran first, gets modal requests first too (page/tripwire.js). So is a request the user hands on in the security-key window ("another way"), with the
 * page's signal and the time it has left, once the document has the focus back; on Chromium's proxy path, after
 * the bridge handed the proxied call back (callThroughProxy). A conditional get for the browser's own waits
 * instead while Chromium's proxy is attached, which would refuse it at once (conditionalGet).
 *
 * Page-side flag for tests: navigator.credentials.create.__webauthnBridge === true (also on get).
 *
 * It trusts nothing it receives: relay replies are shape-checked, and the origin is added by the background
 * from the browser's sender record, never from here. It decides nothing either: whether this document may run
 * a ceremony at all (opaque origin, permissions policy, user activation, ancestors, focus) is decided by the
 * relay's isolated world and the background (common/frame-rules.js), which this world's script cannot reach.
 */
(function (root) {
  'use strict';

  const CODEC_KEY = Symbol.for('webauthn-bridge.codec');
  const WEBIDL_KEY = Symbol.for('webauthn-bridge.webidl');
  const TRIPWIRE_KEY = Symbol.for('webauthn-bridge.tripwire');
  const ON_TOP_KEY = Symbol.for('webauthn-bridge.on-top');
  const CAPABILITIES_TIMEOUT_MS = 1500;
  // The fallback reason of a request the user handed on in the security-key window (background/router.js).
  const ANOTHER_WAY = 'another-way';
  // How long a handed-on request without a timeout waits for the focus: the browsers' own default (5 minutes).
  const FOCUS_WAIT_DEFAULT_MS = 300000;
  // The fallback reason that sends a request through Chromium's own function to its proxy path, and the name of the
  // error the bridge completes such a request with when the user hands it back (background/proxy.js): only Chromium
  // rejects the call this script made, so no page can fake it, and the page never sees it.
  const PROXY = 'proxy';
  const HANDED_BACK = 'WebAuthnBridgeHandedBack';
  // The fallback reason that says such a call is about to end because the bridge lends the proxy to another tab's
  // request: this script takes the end for no answer and calls again when told `proxy` once more
  // (background/proxy.js CALL_AGAIN).
  const CALL_AGAIN = 'call-again';
  const { apply, defineProperty: reflectDefine, deleteProperty } = Reflect;
  const { max, round } = Math;
  // page/on-top.js: in the page, handed over as codec and webidl are; in node, required.
  const onTop = typeof module === 'object' && module && module.exports ? require('./on-top.js') : root[ON_TOP_KEY];
  const { getOwnPropertyDescriptor } = Object;

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

    // Captured now, before any page script can replace them.
    const PromiseCtor = win.Promise;
    const env = {
      PublicKeyCredential: PKC,
      AuthenticatorAttestationResponse: win.AuthenticatorAttestationResponse,
      AuthenticatorAssertionResponse: win.AuthenticatorAssertionResponse,
      DOMException: win.DOMException,
      TypeError: win.TypeError,
      AbortSignal: win.AbortSignal,
    };
    const postMessage = win.postMessage;
    const addEventListener = win.addEventListener;
    // A page's request runs after page scripts did what they liked to these prototypes: read through the natives.
    const signalProto = win.AbortSignal && win.AbortSignal.prototype;
    const eventTargetProto = win.EventTarget && win.EventTarget.prototype;
    const signalAborted = captured(signalProto, 'aborted') || ((signal) => signal.aborted);
    const signalReason = captured(signalProto, 'reason') || ((signal) => signal.reason);
    const listen = captured(eventTargetProto, 'addEventListener') || ((t, ...a) => t.addEventListener(...a));
    const unlisten = captured(eventTargetProto, 'removeEventListener') || ((t, ...a) => t.removeEventListener(...a));
    const rejected = (error) => new PromiseCtor((resolve, reject) => reject(error));
    const promiseThen = captured(PromiseCtor.prototype, 'then');
    const errorName = captured(win.DOMException && win.DOMException.prototype, 'name');
    const performanceObj = win.performance;
    const performanceNow = captured(win.Performance && win.Performance.prototype, 'now');
    const clock = performanceObj && performanceNow ? () => performanceNow(performanceObj) : () => Date.now();
    const doc = win.document;
    const documentHasFocus = captured(win.Document && win.Document.prototype, 'hasFocus');
    const hasFocus = () => (doc && documentHasFocus ? documentHasFocus(doc) === true : true);
    const setTimer = win.setTimeout;
    const clearTimer = win.clearTimeout;
    const cryptoObj = win.crypto;
    // window.origin, not location.origin: a sandboxed document's location names its URL's origin, and a message
    // targeted there would be dropped by its own opaque window, leaving the promise unsettled.
    const selfOrigin = win.origin && win.origin !== 'null' ? win.origin : '*';

    const microtask = win.queueMicrotask;
    const pageHooks = { listen, unlisten, abortReason, follow, queueMicrotask: (task) => apply(microtask, win, [task]) };

    function post(message) {
      apply(postMessage, win, [{ channel: codec.CHANNEL, dir: 'to-relay', ...message }, selfOrigin]);
    }

    // What the bridge hands a conditional get to is the browser's own: the prototype's function, not one a wrapper
    // that ran first assigned on the container.
    let getBelowIsBrowsers = !Object.prototype.hasOwnProperty.call(creds, 'get');
    // Set while the bridge calls what was put back below it (page/on-top.js): a call that comes straight back from
    // there (a bound copy of the bridge's own, which reads as the browser's too) goes to the browser's own, not round
    // again (a stack overflow, or a fallback served again and again).
    let callingPutBack = 0;

    // One pending modal request per frame, as in both browsers.
    let pending = null;
    // Requests whose call of Chromium's own function its proxy path serves (rid → entry): the user may hand one back.
    const throughProxy = new Map();
    const capabilityWaiters = new Map();
    const detachWaiters = new Map();

    function finish(entry) {
      if (pending === entry) pending = null;
      if (entry.signal) unlisten(entry.signal, 'abort', entry.onAbort);
    }

    function abortReason(signal) {
      const reason = signalReason(signal);
      return reason !== undefined ? reason : new env.DOMException('The operation was aborted.', 'AbortError');
    }

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
          ? conditionalGet(original, converted) : apply(original, creds, [converted]);
      }
      const signal = converted.signal;
      if (signal && signalAborted(signal)) return rejected(abortReason(signal));
      const refusal = webidl.browserRefusal(type, converted, browser);
      if (refusal) return rejected(new env.DOMException(refusal[1], refusal[0]));
      return new PromiseCtor((resolve, reject) => {
        const entry = { type, original, options: converted, signal, conditional, resolve, reject, startedAt: clock() };
        if (!wrapperFirst[type]) return ceremony(entry);
        // Handed on to the browser's own: the bridge serves it, and hands below to the browser's own.
        tripwire.offer({
          call: (options) => apply(original, creds, [options]), converted, signal, resolve, reject,
          names: webidl.publicKeyMembers(type, browser),
          handedOn: new env.DOMException('The security key bridge serves this request.', 'NotAllowedError'),
          onHandedOn() {
            entry.original = browsersOwn[type];
            entry.handedOn = true;
            ceremony(entry);
          },
        }, pageHooks);
      });
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

    /**
     * Chromium's proxy path: the page's call of Chromium's own function comes back to the bridge, which may hand it
     * back at the user's word. It then completes the proxied call with HANDED_BACK, detaches the proxy (Chromium
     * hands nothing to its own UI while attached), and says `another-way` here; in whichever order the two arrive,
     * the request then goes below as on the page path, and `below-done` tells the bridge when it has settled (the
     * proxy is attached again).
     */
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
      const proxied = throughProxy.get(message.rid);
      if (proxied) return proxiedMessage(proxied, message);
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
        else if (message.reason === PROXY && promiseThen && errorName) callThroughProxy(entry);
        else goBelow();
      }
    }
    addEventListener.call(win, 'message', onMessage, true);

    /** The background's `capabilities` answer ({capabilities, proxyAttached}), or null without one in time. */
    function askCapabilities() {
      const rid = codec.newRequestId(cryptoObj);
      return new PromiseCtor((resolve) => {
        const timer = win.setTimeout(() => { capabilityWaiters.delete(rid); resolve(null); }, CAPABILITIES_TIMEOUT_MS);
        capabilityWaiters.set(rid, (answer) => { win.clearTimeout(timer); capabilityWaiters.delete(rid); resolve(answer); });
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
      const answer = await askCapabilities();
      return codec.mergeCapabilities(browserCaps, answer && answer.capabilities);
    }
    // Dressed as the browser's own static (descriptor, name, length, source; a plain function, since an async
    // one would have AsyncFunction.prototype): page/credential.js replaceStatic.
    shapes.replaceStatic(PKC, 'getClientCapabilities', () => clientCapabilities());
    return true;
  }

  if (typeof module === 'object' && module && module.exports) {
    module.exports = { install };
    return;
  }
  const codec = root[CODEC_KEY];
  const webidl = root[WEBIDL_KEY];
  const tripwire = root[TRIPWIRE_KEY];
  delete root[CODEC_KEY];
  delete root[WEBIDL_KEY];
  delete root[TRIPWIRE_KEY];
  delete root[ON_TOP_KEY];
  if (codec && webidl) install(root, codec, webidl, webidl.browserOf(root), tripwire);
})(globalThis);
