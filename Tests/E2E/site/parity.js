// The parity probe (issue 13): one function that walks a credential, its response and their prototypes and
// describes everything a page can observe, so test_parity.py can require the description of the bridge's
// object to equal that of the browser's own. Nothing here knows which client made the object.
//
// A description leaves out only what differs between any two credentials (ids, key bytes, challenge): strings
// and numbers are described by type, except the enumerated members (type, authenticatorAttachment,
// transports, publicKeyAlgorithm), whose values must match too.
'use strict';

(function () {
  const INSTANCE_OF = ['Object', 'Error', 'DOMException', 'TypeError', 'RangeError', 'Credential', 'PublicKeyCredential',
    'AuthenticatorResponse', 'AuthenticatorAttestationResponse', 'AuthenticatorAssertionResponse'];
  const VALUES_THAT_MATTER = new Set(['type', 'authenticatorAttachment', 'transports', 'getTransports', 'publicKeyAlgorithm', 'getPublicKeyAlgorithm']);

  const tag = (value) => Object.prototype.toString.call(value);

  function isConstructor(fn) {
    try {
      Reflect.construct(String, [], fn); // checks IsConstructor(fn) without calling it
      return true;
    } catch (_) {
      return false;
    }
  }

  function describeFunction(fn) {
    if (typeof fn !== 'function') return fn === undefined ? 'undefined' : typeof fn;
    const prototype = Object.getPrototypeOf(fn);
    return {
      name: fn.name, length: fn.length,
      source: Function.prototype.toString.call(fn), // as the page's toString shows it
      // As a set: Firefox makes a function's name and length on first use, and whether reading .name makes it
      // depends on its JIT's inline caches (one loop over the browser's own methods gave [name, length] for
      // the first ones and [length, name] for the rest), so their order says nothing about the function.
      ownKeys: Reflect.ownKeys(fn).map(String).sort(),
      nameDescriptor: flags(Object.getOwnPropertyDescriptor(fn, 'name')),
      lengthDescriptor: flags(Object.getOwnPropertyDescriptor(fn, 'length')),
      prototype: prototype === Function.prototype ? 'Function.prototype' : tag(prototype),
      constructible: isConstructor(fn),
    };
  }

  function flags(d) {
    return d ? { writable: d.writable, enumerable: d.enumerable, configurable: d.configurable } : null;
  }

  function describeDescriptor(d) {
    if ('value' in d) {
      const value = typeof d.value === 'function' ? describeFunction(d.value) : (typeof d.value === 'string' ? d.value : typeof d.value);
      return { kind: 'data', writable: d.writable, enumerable: d.enumerable, configurable: d.configurable, value };
    }
    return { kind: 'accessor', enumerable: d.enumerable, configurable: d.configurable, get: describeFunction(d.get), set: describeFunction(d.set) };
  }

  function describeOwn(object) {
    return Reflect.ownKeys(object).map((key) => [String(key), describeDescriptor(Object.getOwnPropertyDescriptor(object, key))]);
  }

  /** Each prototype up to Object.prototype: which interface, and every member it holds, in order. */
  function chainOf(object) {
    const chain = [];
    for (let p = Object.getPrototypeOf(object); p !== null; p = Object.getPrototypeOf(p)) {
      if (p === Object.prototype) {
        chain.push({ name: 'Object.prototype' });
        break;
      }
      const ctor = Object.getOwnPropertyDescriptor(p, 'constructor');
      chain.push({ name: ctor && typeof ctor.value === 'function' ? ctor.value.name : '?', members: describeOwn(p) });
    }
    return chain;
  }

  function forInKeys(object) {
    const keys = [];
    for (const key in object) keys.push(key);
    return keys;
  }

  /** What a page sees without calling any member: safe on a bare Object.create(prototype) too. */
  function structureOf(object) {
    const instanceOf = {};
    for (const name of INSTANCE_OF) if (typeof globalThis[name] === 'function') instanceOf[name] = object instanceof globalThis[name];
    return {
      tag: tag(object), chain: chainOf(object), own: describeOwn(object), keys: Object.keys(object), forIn: forInKeys(object),
      instanceOf, extensible: Object.isExtensible(object), frozen: Object.isFrozen(object), sealed: Object.isSealed(object),
    };
  }

  function isPlatformObject(value) {
    const proto = Object.getPrototypeOf(value);
    return proto !== Object.prototype && proto !== null && proto !== Array.prototype && tag(value) !== '[object ArrayBuffer]';
  }

  function describeValue(value, key) {
    if (value === null) return 'null';
    switch (typeof value) {
      case 'undefined': return 'undefined';
      case 'boolean': return value;
      case 'number': case 'string': return VALUES_THAT_MATTER.has(key) ? value : typeof value;
      case 'function': return describeFunction(value);
      default: break;
    }
    if (tag(value) === '[object ArrayBuffer]') return { ArrayBuffer: Object.getPrototypeOf(value) === ArrayBuffer.prototype };
    if (Array.isArray(value)) {
      return { array: value.map((item) => describeValue(item, key)), ofThisRealm: Object.getPrototypeOf(value) === Array.prototype };
    }
    if (isPlatformObject(value)) return { platformObject: structureOf(value), behaviour: behaviourOf(value) };
    const proto = Object.getPrototypeOf(value);
    return {
      object: proto === null ? 'null prototype' : 'Object.prototype',
      entries: Reflect.ownKeys(value).map((k) => [String(k), describeDescriptor(Object.getOwnPropertyDescriptor(value, k)).kind,
        describeValue(value[k], k)]),
    };
  }

  /** Whether two results are the same objects, member by member ([SameObject], fresh dictionaries). */
  function sameness(a, b) {
    if (a === null || typeof a !== 'object') return 'not an object';
    const out = { same: a === b };
    if (a !== b && b !== null && typeof b === 'object' && !isPlatformObject(a) && tag(a) !== '[object ArrayBuffer]') {
      out.members = Object.keys(a).map((k) => [k, sameness(a[k], b[k])]);
    }
    return out;
  }

  function findDescriptor(object, key) {
    for (let p = object; p !== null; p = Object.getPrototypeOf(p)) {
      const d = Object.getOwnPropertyDescriptor(p, key);
      if (d) return d;
    }
    return undefined;
  }

  /** What a page sees calling each member twice (values, identities), and through JSON. */
  function behaviourOf(object) {
    const members = [];
    for (const key of forInKeys(object)) {
      const d = findDescriptor(object, key);
      try {
        if (d.get) {
          const first = object[key];
          members.push([key, 'read', describeValue(first, key), sameness(first, object[key])]);
        } else if (typeof d.value === 'function') {
          const first = object[key]();
          members.push([key, 'call', describeValue(first, key), sameness(first, object[key]())]);
        }
      } catch (error) {
        members.push([key, 'threw', error.name, error.message]);
      }
    }
    const out = { members };
    if (typeof object.toJSON === 'function') {
      out.json = describeValue(JSON.parse(JSON.stringify(object)), 'JSON.stringify');
      out.jsonIsToJSON = JSON.stringify(object) === JSON.stringify(object.toJSON());
    }
    return out;
  }

  /** Strict-mode `object[key] = function`: the outcome, and the object put back as it was. */
  function assign(object, key) {
    const value = function assigned() { return { assigned: true }; };
    try {
      object[key] = value;
    } catch (error) {
      return { threw: error.name, message: error.message, pageRealm: error instanceof TypeError };
    }
    const row = { threw: null, own: Object.hasOwn(object, key), readsBack: object[key] === value };
    delete object[key];
    row.restored = !Object.hasOwn(object, key);
    return row;
  }

  /** Assignment to every member, JSON.stringify with an own toJSON (what the client library does),
   *  then Object.freeze. Changes the object, so it comes last; never calls a member. */
  function mutations(object) {
    const keys = forInKeys(object);
    const out = { assignments: keys.map((key) => [key, assign(object, key)]) };
    if ('toJSON' in object) {
      object.toJSON = () => ({ overridden: true });
      out.stringifyWithOwnToJSON = JSON.stringify(object);
      delete object.toJSON;
    }
    out.frozenBefore = Object.isFrozen(object);
    try {
      out.freeze = Object.freeze(object) === object ? 'returned the object' : 'returned something else';
    } catch (error) {
      out.freeze = `threw ${error.name}: ${error.message}`;
    }
    out.frozenAfter = Object.isFrozen(object);
    out.assignmentsWhenFrozen = keys.map((key) => [key, assign(object, key)]);
    return out;
  }

  /** What structuredClone() does with the object: the browser's own credential is a platform object it refuses. */
  function cloning(object) {
    try {
      structuredClone(object);
      return 'copied';
    } catch (error) {
      return `threw ${error.name}`;
    }
  }

  function describeCredential(cred) {
    const response = cred.response;
    const out = { credential: structureOf(cred), response: structureOf(response), behaviour: behaviourOf(cred) };
    out.cloning = { credential: cloning(cred), response: cloning(response) };
    out.responseMutations = mutations(response);
    out.credentialMutations = mutations(cred);
    out.behaviourWhenFrozen = behaviourOf(cred);
    return out;
  }

  function describeError(error) {
    return {
      structure: structureOf(error), name: error.name, code: error.code, messageType: typeof error.message,
      json: JSON.stringify(error),
    };
  }

  // ---- ceremonies: the same options whichever client serves them ----------------------------------------

  const state = { credentialId: null };
  const random = (n) => crypto.getRandomValues(new Uint8Array(n));

  function creationOptions(extensions, excludeCredentials = []) {
    return {
      rp: { name: 'webauthn-bridge parity', id: location.hostname },
      user: { id: random(16), name: 'parity', displayName: 'Parity' },
      challenge: random(32),
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: { residentKey: 'required', userVerification: 'discouraged' },
      attestation: 'none', timeout: 30000, excludeCredentials,
      ...(extensions ? { extensions: { credProps: true, prf: {} } } : {}),
    };
  }

  function requestOptions(extensions, allowCredentials) {
    return {
      challenge: random(32), rpId: location.hostname, userVerification: 'discouraged', timeout: 30000, allowCredentials,
      ...(extensions ? { extensions: { prf: { eval: { first: random(32) } } } } : {}),
    };
  }

  async function create({ extensions }) {
    const cred = await navigator.credentials.create({ publicKey: creationOptions(extensions) });
    state.credentialId = cred.rawId.slice(0);
    return describeCredential(cred);
  }

  async function get({ extensions }) {
    const allow = [{ type: 'public-key', id: state.credentialId }];
    return describeCredential(await navigator.credentials.get({ publicKey: requestOptions(extensions, allow) }));
  }

  /** A rejection and its description: `excluded` (the last credential listed in excludeCredentials),
   *  `tooMany` (65 allowCredentials). */
  async function rejection({ scenario }) {
    try {
      if (scenario === 'excluded') {
        await navigator.credentials.create({ publicKey: creationOptions(false, [{ type: 'public-key', id: state.credentialId }]) });
      } else {
        const many = Array.from({ length: 65 }, (_, i) => ({ type: 'public-key', id: random(16).map((b) => b ^ i) }));
        await navigator.credentials.get({ publicKey: requestOptions(false, many) });
      }
    } catch (error) {
      return describeError(error);
    }
    return { resolved: true };
  }

  const CREATION_JSON = {
    rp: { name: 'x', id: 'localhost' }, user: { id: 'AAEC', name: 'u', displayName: 'U' }, challenge: 'AAECAw',
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }], excludeCredentials: [{ type: 'public-key', id: 'BAUG', transports: ['usb'] }],
    extensions: { prf: { eval: { first: 'AAAA' } } },
  };
  const REQUEST_JSON = { challenge: 'AAECAw', rpId: 'localhost', allowCredentials: [{ type: 'public-key', id: 'BAUG' }] };

  async function answerOf(call) {
    try {
      const promise = call();
      return { promise: Object.getPrototypeOf(promise) === Promise.prototype, value: await promise };
    } catch (error) {
      return { threw: error.name };
    }
  }

  /** PublicKeyCredential's and Credential's statics: descriptors, and what they answer. */
  async function statics() {
    const PKC = PublicKeyCredential;
    const out = {
      functionToString: describeDescriptor(Object.getOwnPropertyDescriptor(Function.prototype, 'toString')),
      Credential: describeOwn(Credential), PublicKeyCredential: describeOwn(PKC),
      isUserVerifyingPlatformAuthenticatorAvailable: await answerOf(() => PKC.isUserVerifyingPlatformAuthenticatorAvailable()),
      isConditionalMediationAvailable: await answerOf(() => PKC.isConditionalMediationAvailable()),
      getClientCapabilities: await answerOf(() => PKC.getClientCapabilities()),
    };
    const caps = out.getClientCapabilities.value;
    if (caps) out.getClientCapabilities.shape = describeValue(Object.fromEntries(Object.keys(caps).map((k) => [k, typeof caps[k]])));
    out.parseCreationOptionsFromJSON = describeValue(PKC.parseCreationOptionsFromJSON(CREATION_JSON));
    out.parseRequestOptionsFromJSON = describeValue(PKC.parseRequestOptionsFromJSON(REQUEST_JSON));
    return out;
  }

  window.parity = { create, get, rejection, statics };
})();
