/*
 * credential.js — the credential objects a bridged create()/get() resolves with, shaped like the browser's own.
 *
 * Runs in the page's MAIN world at document_start, right after codec.js and before any page script (and in
 * node through codec.js's `require`). A browser's credential has no own properties: its attributes are
 * getters and its methods ordinary writable functions on the interface prototypes (PublicKeyCredential →
 * Credential, AuthenticatorAttestationResponse/AuthenticatorAssertionResponse → AuthenticatorResponse).
 * The bridge's objects are plain objects with those very prototypes. The browser's getters and methods
 * refuse any object the engine did not make ("Illegal invocation"), so each WebAuthn member on those
 * prototypes is replaced, now, by a function that serves the bridge's objects from a WeakMap (their
 * "internal slots") and hands every other receiver to the saved native function: the browser's own
 * credentials (fallback) work as before and a wrong receiver gets the browser's own TypeError.
 *
 * Each replacement keeps the native property's attributes, name and length, and Function.prototype.toString
 * shows the native function's source for it (the page's toString is replaced for that, and shows its own
 * native source too). Each object is an EventTarget given the WebAuthn prototype: a platform object without own
 * properties, so structuredClone() and postMessage() refuse it with DataCloneError as they refuse the browser's
 * own credential. Known limits, documented in docs/extension.md: a toString borrowed from another realm (a fresh
 * about:blank frame) shows the replacement's source, and SpiderMonkey's texts name the object's class
 * ("EventTarget object could not be cloned.", "EventTarget is not extensible") where Firefox's own names
 * PublicKeyCredential.
 */
(function (root) {
  'use strict';

  const CODEC_KEY = Symbol.for('webauthn-bridge.codec');

  // Captured now, as bound functions: later page scripts may replace the globals and prototype methods.
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const weakGet = uncurry(WeakMap.prototype.get);
  const weakSet = uncurry(WeakMap.prototype.set);
  const arraySlice = uncurry(Array.prototype.slice);
  const apply = Reflect.apply;
  const { create, defineProperty, getOwnPropertyDescriptor, freeze, setPrototypeOf } = Object;
  const bufferLength = uncurry(getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get);
  const typedSet = uncurry(Object.getPrototypeOf(Uint8Array.prototype).set);
  const BufferCtor = ArrayBuffer;
  const Uint8 = Uint8Array;

  const attribute = (serve) => ({ kind: 'attribute', serve });
  const operation = (serve) => ({ kind: 'operation', serve });

  /**
   * The WebAuthn L3 members (§5.1, §5.2) and how a bridge object answers each from its slot
   * ({ record, response }: codec.decodeCredential's record and, for a credential, its response object) and the
   * window's `copy` of a buffer a method answers (Chromium answers the same ArrayBuffer each call, Firefox a new
   * one). The browser's own descriptor decides getter or method; `kind` only serves a member it lacks.
   */
  const INTERFACES = {
    Credential: {
      id: attribute((slot) => slot.record.id),
      type: attribute(() => 'public-key'),
    },
    PublicKeyCredential: {
      rawId: attribute((slot) => slot.record.rawId),
      response: attribute((slot) => slot.response),
      authenticatorAttachment: attribute((slot) => slot.record.authenticatorAttachment),
      getClientExtensionResults: operation((slot, copy) => slot.record.clientExtensionResults(copy)),
      toJSON: operation((slot) => slot.record.toJSON()),
    },
    AuthenticatorResponse: {
      clientDataJSON: attribute((slot) => slot.record.response.clientDataJSON),
    },
    AuthenticatorAttestationResponse: {
      attestationObject: attribute((slot) => slot.record.response.attestationObject),
      // A new array each call, as the browsers' sequence<DOMString> conversion makes.
      getTransports: operation((slot) => arraySlice(slot.record.response.transports)),
      getAuthenticatorData: operation((slot, copy) => copy(slot.record.response.authenticatorData)),
      getPublicKey: operation((slot, copy) => copy(slot.record.response.publicKey)),
      getPublicKeyAlgorithm: operation((slot) => slot.record.response.publicKeyAlgorithm),
    },
    AuthenticatorAssertionResponse: {
      authenticatorData: attribute((slot) => slot.record.response.authenticatorData),
      signature: attribute((slot) => slot.record.response.signature),
      userHandle: attribute((slot) => slot.record.response.userHandle),
    },
  };

  // The interfaces each kind of bridge object implements (its brand), as null-prototype sets.
  const brand = (...names) => freeze(Object.assign(create(null), ...names.map((n) => ({ [n]: true }))));
  const BRANDS = {
    credential: brand('Credential', 'PublicKeyCredential'),
    attestation: brand('AuthenticatorResponse', 'AuthenticatorAttestationResponse'),
    assertion: brand('AuthenticatorResponse', 'AuthenticatorAssertionResponse'),
  };
  // An interface the window lacks (a stand-in in tests) has its members put on these instead.
  const CHILDREN = {
    Credential: ['PublicKeyCredential'],
    AuthenticatorResponse: ['AuthenticatorAttestationResponse', 'AuthenticatorAssertionResponse'],
  };

  const installed = new WeakMap(); // PublicKeyCredential.prototype → shapes
  const sourceMasks = new WeakMap(); // Function.prototype of a realm → its masker

  /** A new ArrayBuffer with `value`'s bytes (any other value as it is): what Firefox's methods answer each call. */
  function copyBuffer(value) {
    let length;
    try {
      length = bufferLength(value);
    } catch (_) {
      return value;
    }
    const out = new BufferCtor(length);
    typedSet(new Uint8(out), new Uint8(value));
    return out;
  }

  function illegalInvocation() {
    throw new TypeError('Illegal invocation');
  }

  function interfacePrototype(win, name) {
    const ctor = win[name];
    return typeof ctor === 'function' && ctor.prototype !== null && typeof ctor.prototype === 'object' ? ctor.prototype : null;
  }

  /**
   * Function.prototype.toString for one realm, replaced so that a replacement reads as the native function
   * it stands for. Everything else goes to the native toString, errors included.
   */
  function sourceMasker(functionPrototype) {
    const known = weakGet(sourceMasks, functionPrototype);
    if (known) return known;
    const nativeToString = functionPrototype.toString;
    const descriptor = getOwnPropertyDescriptor(functionPrototype, 'toString');
    let masker = { mask() {} };
    if (typeof nativeToString === 'function' && descriptor && descriptor.configurable) {
      const sources = new WeakMap();
      const sourceOf = (fn) => apply(nativeToString, fn, []);
      // This engine's way of printing a native method ("function toString() { [native code] }"), for a method
      // the browser lacks (getClientCapabilities before Firefox 135, say).
      const nativeMethodSource = sourceOf(nativeToString);
      masker = {
        mask(fn, native, methodName) {
          if (typeof native === 'function') weakSet(sources, fn, sourceOf(native));
          else if (methodName) weakSet(sources, fn, nativeMethodSource.replace('toString', methodName));
        },
      };
      const toString = {
        toString() {
          const source = weakGet(sources, this);
          return source !== undefined ? source : apply(nativeToString, this, []);
        },
      }.toString;
      weakSet(sources, toString, nativeMethodSource);
      defineProperty(functionPrototype, 'toString', { ...descriptor, value: toString });
    }
    weakSet(sourceMasks, functionPrototype, masker);
    return masker;
  }

  // The replacements' `name` and `length` are left alone (never read or redefined): SpiderMonkey creates them
  // lazily, for script and native functions alike, in the order a page first reads them, and V8 lists a
  // redefined one after the other; untouched, both engines list them as for the native function.

  /** A method named `key` that runs body(this, args): not constructible, no prototype, like a native method. */
  function methodLike(key, body) {
    return { [key](...args) { return body(this, args); } }[key];
  }

  /** A getter named "get <key>" that runs body(this). */
  function getterLike(key, body) {
    return getOwnPropertyDescriptor({ get [key]() { return body(this); } }, key).get;
  }

  /**
   * Replaces proto[key] by `dispatch` made into the same kind of member as the browser's: its descriptor's
   * attributes, its name and length, its source. A member the browser lacks gets WebIDL's defaults.
   */
  function replaceMember(proto, key, kind, dispatch, masker) {
    const native = getOwnPropertyDescriptor(proto, key);
    if (native && !native.configurable) return;
    const nativeGetter = native && native.get;
    const nativeMethod = native && typeof native.value === 'function' ? native.value : undefined;
    if (native && !nativeGetter && !nativeMethod) return; // a plain value: not a WebAuthn member here
    if (nativeGetter || (!native && kind === 'attribute')) {
      const get = getterLike(key, (self) => dispatch(self, [], nativeGetter));
      masker.mask(get, nativeGetter);
      defineProperty(proto, key, { get, set: native ? native.set : undefined, enumerable: native ? native.enumerable : true, configurable: true });
    } else {
      const value = methodLike(key, (self, args) => dispatch(self, args, nativeMethod));
      const length = nativeMethod ? nativeMethod.length : 0;
      if (length !== 0) defineProperty(value, 'length', { value: length }); // no WebAuthn member needs this
      masker.mask(value, nativeMethod, key);
      defineProperty(proto, key, { value, writable: native ? native.writable : true, enumerable: native ? native.enumerable : true, configurable: true });
    }
  }

  /** The prototypes an interface's members go on: its own, or its children's when the window lacks it. */
  function targetsOf(win, name) {
    const own = interfacePrototype(win, name);
    if (own) return [own];
    return (CHILDREN[name] || []).map((child) => interfacePrototype(win, child)).filter(Boolean);
  }

  /**
   * Installs the members on win's WebAuthn prototypes (once per PublicKeyCredential.prototype) and returns
   * the builder for that window, or null when it has no PublicKeyCredential (insecure context).
   */
  function forWindow(win) {
    const pkc = interfacePrototype(win, 'PublicKeyCredential');
    const attestation = interfacePrototype(win, 'AuthenticatorAttestationResponse');
    const assertion = interfacePrototype(win, 'AuthenticatorAssertionResponse');
    if (!pkc || !attestation || !assertion) return null;
    const known = weakGet(installed, pkc);
    if (known) return known;

    const slots = new WeakMap();
    // An object of `proto` that the structured clone algorithm refuses, as it refuses the browser's own.
    const EventTargetCtor = win.EventTarget;
    const spiderMonkey = typeof win.Error === 'function' && getOwnPropertyDescriptor(new win.Error(), 'columnNumber');
    const copy = spiderMonkey ? copyBuffer : (value) => value;
    const uncloneable = typeof EventTargetCtor === 'function'
      ? (proto) => setPrototypeOf(new EventTargetCtor(), proto)
      : (proto) => create(proto);
    // Only a window that hands in its Function gets toString masked: tests' stand-in classes do not.
    const masker = typeof win.Function === 'function' ? sourceMasker(win.Function.prototype) : { mask() {} };
    for (const name of Object.keys(INTERFACES)) {
      for (const proto of targetsOf(win, name)) {
        for (const key of Object.keys(INTERFACES[name])) {
          const member = INTERFACES[name][key];
          replaceMember(proto, key, member.kind, (self, args, native) => {
            const slot = weakGet(slots, self);
            if (slot !== undefined && slot.brands[name] === true) return member.serve(slot, copy);
            return native ? apply(native, self, args) : illegalInvocation();
          }, masker);
        }
      }
    }

    const shapes = freeze({
      /** A codec.decodeCredential record → the PublicKeyCredential the page is given. */
      build(record) {
        const response = uncloneable(record.registration ? attestation : assertion);
        weakSet(slots, response, freeze({ brands: record.registration ? BRANDS.attestation : BRANDS.assertion, record }));
        const credential = uncloneable(pkc);
        weakSet(slots, credential, freeze({ brands: BRANDS.credential, record, response }));
        return credential;
      },
      /** ctor[key] := impl, dressed as the browser's own static of that name (or as a WebIDL one). */
      replaceStatic(ctor, key, impl) {
        replaceMember(ctor, key, 'operation', (self, args) => apply(impl, self, args), masker);
      },
      /** fn's source, read through Function.prototype.toString, is a native method's named `name`. */
      showAsNative(fn, name) {
        masker.mask(fn, undefined, name);
      },
    });
    weakSet(installed, pkc, shapes);
    return shapes;
  }

  const api = freeze({ forWindow });
  if (typeof module === 'object' && module && module.exports) {
    module.exports = api;
    return;
  }
  const codec = root[CODEC_KEY];
  if (codec) {
    codec.useCredentialShapes(api);
    forWindow(root); // now, before any page script can capture or freeze the prototypes
  }
})(globalThis);
