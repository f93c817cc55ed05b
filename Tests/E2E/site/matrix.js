// The conversion matrix: one valid create() or get() request with one member changed to an unusual value of
// some JavaScript type, hundreds of times. test_conversion_matrix.py runs the same variants against the
// browser's own WebAuthn and through the bridge and compares what each says: resolved, rejected (and the
// exception's name) or still pending, and for a ceremony what it used (clientDataJSON, rpIdHash, flags and the
// algorithm in authenticatorData). Nothing here knows which client answers.
'use strict';

(function () {
  const PENDING_MS = 6000;   // a request still open after this is "pending" (and aborted when we can)
  const CHALLENGE = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const USER_ID = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
  const OTHER_ID = Uint8Array.from({ length: 16 }, (_, i) => 0x10 + i);   // on no authenticator

  const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

  function baseCreate() {
    return {
      publicKey: {
        rp: { name: 'Matrix' },
        user: { id: USER_ID.slice(), name: 'matrix', displayName: 'Matrix' },
        challenge: CHALLENGE.slice(),
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        timeout: 20000,
        excludeCredentials: [{ type: 'public-key', id: OTHER_ID.slice() }],
        authenticatorSelection: { residentKey: 'discouraged', userVerification: 'discouraged' },
        attestation: 'none',
        extensions: { credProps: true },
      },
    };
  }

  let knownId = null;   // the credential the first create made, for get()
  function baseGet() {
    return {
      publicKey: {
        challenge: CHALLENGE.slice(),
        timeout: 20000,
        allowCredentials: [{ type: 'public-key', id: knownId.slice(), transports: ['usb'] }],
        userVerification: 'discouraged',
        extensions: {},
      },
    };
  }

  // ---- Values ----------------------------------------------------------------------------------------------------
  // Each makes a value from the member's valid one (some wrap it). `throwing` marks the getter that throws.
  function detached() {
    const buffer = new ArrayBuffer(8);
    structuredClone(buffer, { transfer: [buffer] });
    return buffer;
  }
  class Thrown extends Error {}
  const VALUES = {
    undefined: () => undefined,
    null: () => null,
    true: () => true,
    zero: () => 0,
    fraction: () => 1.5,
    NaN: () => NaN,
    huge: () => 2 ** 32 + 5,
    bigint: () => 1n,
    symbol: () => Symbol('s'),
    emptyString: () => '',
    numericString: () => '-7',
    emptyArray: () => [],
    sparseArray: (valid) => (Array.isArray(valid) ? [, ...valid] : [, valid]), // eslint-disable-line no-sparse-arrays
    emptyObject: () => ({}),
    toStringObject: (valid) => ({ toString: () => (typeof valid === 'string' ? valid : 'x') }),
    stringObject: (valid) => new String(typeof valid === 'string' ? valid : 'x'), // eslint-disable-line no-new-wrappers
    function: () => function f() {},
    proxy: (valid) => (valid !== null && typeof valid === 'object' ? new Proxy(valid, {}) : new Proxy({}, {})),
    set: (valid) => new Set(Array.isArray(valid) ? valid : [valid]),
    arrayBuffer: () => new Uint8Array([1, 2, 3, 4]).buffer,
    dataView: () => new DataView(new Uint8Array([9, 8, 7, 6, 5]).buffer, 1, 3),
    detachedBuffer: detached,
    resizableBuffer: () => new ArrayBuffer(8, { maxByteLength: 16 }),
    // No SharedArrayBuffer global outside cross-origin-isolated documents, but wasm shared memory still makes one.
    sharedBuffer: () => new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer,
    sharedView: () => new Uint8Array(new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer, 0, 16),
    throwingToString: () => ({ toString() { throw new Thrown('thrown by toString'); } }),
    throwingGetter: 'throwing',
  };

  // ---- Members -------------------------------------------------------------------------------------------------------
  // "op path", the path from the options object; a number indexes a sequence.
  const MEMBERS = [
    'create publicKey', 'create publicKey.rp', 'create publicKey.rp.name', 'create publicKey.rp.id',
    'create publicKey.user', 'create publicKey.user.id', 'create publicKey.user.name',
    'create publicKey.user.displayName', 'create publicKey.challenge', 'create publicKey.pubKeyCredParams',
    'create publicKey.pubKeyCredParams.0', 'create publicKey.pubKeyCredParams.0.alg',
    'create publicKey.pubKeyCredParams.0.type', 'create publicKey.timeout', 'create publicKey.excludeCredentials',
    'create publicKey.excludeCredentials.0.id', 'create publicKey.excludeCredentials.0.type',
    'create publicKey.authenticatorSelection', 'create publicKey.authenticatorSelection.residentKey',
    'create publicKey.authenticatorSelection.requireResidentKey',
    'create publicKey.authenticatorSelection.authenticatorAttachment', 'create publicKey.attestation',
    'create publicKey.hints', 'create publicKey.extensions', 'create publicKey.extensions.credProps',
    'create mediation', 'create signal', 'get publicKey', 'get publicKey.challenge', 'get publicKey.timeout',
    'get publicKey.rpId', 'get publicKey.allowCredentials', 'get publicKey.allowCredentials.0',
    'get publicKey.allowCredentials.0.type', 'get publicKey.allowCredentials.0.transports',
    'get publicKey.userVerification', 'get publicKey.extensions', 'get mediation', 'get password', 'get uiMode',
    // Extension inputs: each from a valid value (VALID below) the base request does not carry.
    'get publicKey.extensions.appid', 'create publicKey.extensions.appidExclude',
    'create publicKey.extensions.credentialProtectionPolicy', 'create publicKey.extensions.enforceCredentialProtectionPolicy',
    'create publicKey.extensions.credBlob', 'get publicKey.extensions.getCredBlob', 'create publicKey.extensions.minPinLength',
    'create publicKey.extensions.hmacCreateSecret', 'create publicKey.extensions.uvm', 'create publicKey.extensions.prf',
    'get publicKey.extensions.prf', 'get publicKey.extensions.prf.eval', 'get publicKey.extensions.prf.eval.first',
    'get publicKey.extensions.prf.evalByCredential', 'create publicKey.extensions.largeBlob',
    'create publicKey.extensions.largeBlob.support', 'get publicKey.extensions.largeBlob',
    'get publicKey.extensions.largeBlob.read',
  ].map((text) => {
    const [op, path] = text.split(' ');
    return [op, path.split('.').map((key) => (/^\d+$/.test(key) ? Number(key) : key))];
  });

  // Values of every type for every member, plus the strings the members' own types know.
  const SPECIAL = [
    ['create', ['*'], 'readThroughAProxy', 'logged'],
    ['get', ['*'], 'readThroughAProxy', 'logged'],
    ['create', ['mediation'], 'conditional', () => 'conditional'],
    ['create', ['mediation'], 'silent', () => 'silent'],
    ['create', ['mediation'], 'required', () => 'required'],
    ['get', ['mediation'], 'conditional', () => 'conditional'],
    ['get', ['mediation'], 'silent', () => 'silent'],
    ['get', ['mediation'], 'required', () => 'required'],
    ['get', ['mediation'], 'immediate', () => 'immediate'],
    ['get', ['uiMode'], 'modal', () => 'modal'],
    ['get', ['uiMode'], 'immediate', () => 'immediate'],
    ['get', ['signal'], 'abortedWithReason', () => { const c = new AbortController(); c.abort(new Thrown('the reason')); return c.signal; }],
    ['create', ['signal'], 'abortedWithoutReason', () => { const c = new AbortController(); c.abort(); return c.signal; }],
    ['create', ['publicKey', 'authenticatorSelection', 'authenticatorAttachment'], 'platform', () => 'platform'],
    ['create', ['publicKey', 'authenticatorSelection', 'authenticatorAttachment'], 'crossPlatform', () => 'cross-platform'],
    ['get', ['publicKey', 'extensions', 'appid'], 'notAURL', () => 'not a URL'],
    ['get', ['publicKey', 'extensions', 'credProps'], 'true', () => true],
    ['get', ['publicKey', 'allowCredentials', 0, 'id'], 'detachedBuffer', detached],
    ['get', ['publicKey', 'allowCredentials', 0, 'id'], 'empty', () => new Uint8Array(0)],
    ['create', ['publicKey', 'extensions', 'credentialProtectionPolicy'], 'unknownPolicy', () => 'bogus'],
    ['create', ['publicKey', 'pubKeyCredParams'], 'onlyUnsupported', () => [{ type: 'public-key', alg: 1 }]],
    ['create', ['publicKey', 'pubKeyCredParams'], 'unknownTypeFirst', () => [{ type: 'x', alg: -7 }, { type: 'public-key', alg: -7 }]],
    ['create', ['publicKey', 'rp', 'name'], 'long', () => 'n'.repeat(100000)],
    ['create', ['publicKey', 'user', 'name'], 'long', () => 'u'.repeat(1000)],
    ['create', ['publicKey', 'user', 'displayName'], 'long', () => '\u00e9'.repeat(200)],
    ['create', ['publicKey', 'user', 'id'], 'empty', () => new Uint8Array(0)],
    ['create', ['publicKey', 'user', 'id'], '65bytes', () => new Uint8Array(65)],
    ['get', ['publicKey', 'allowCredentials', 0, 'type'], 'unknownType', () => 'other'],
    ['get', ['publicKey', 'allowCredentials'], 'unknownTypeAndKnown', () => [{ type: 'other', id: OTHER_ID.slice() }, { type: 'public-key', id: knownId.slice() }]],
    // Extension inputs the request cannot use, refused before any authenticator (each browser's own words).
    ['create', ['publicKey', 'extensions', 'appid'], 'theOrigin', () => location.origin],
    ['create', ['publicKey', 'extensions', 'largeBlob'], 'read', () => ({ read: true })],
    ['create', ['publicKey', 'extensions', 'largeBlob'], 'write', () => ({ write: new Uint8Array([1]) })],
    ['create', ['publicKey', 'extensions', 'prf'], 'evalByCredential', () => ({ evalByCredential: {} })],
    ['get', ['publicKey', 'extensions', 'largeBlob'], 'support', () => ({ support: 'required' })],
    ['get', ['publicKey', 'extensions', 'largeBlob'], 'readAndWrite', () => ({ read: true, write: new Uint8Array([1]) })],
    ['get', ['publicKey', 'extensions', 'prf'], 'evalByCredentialNotAllowed', () => ({ evalByCredential: { AQID: { first: new Uint8Array([1]) } } })],
    ['get', ['publicKey', 'extensions', 'prf'], 'evalByCredentialEmptyKey', () => ({ evalByCredential: { '': { first: new Uint8Array([1]) } } })],
    ['get', ['publicKey', 'extensions', 'prf'], 'evalByCredentialNotBase64url', () => ({ evalByCredential: { a: { first: new Uint8Array([1]) } } })],
    // PRF inputs over Chromium's 256 bytes (device::kMaxPRFInputSize); Firefox has no limit.
    ['create', ['publicKey', 'extensions', 'prf'], 'eval257bytes', () => ({ eval: { first: new Uint8Array(257) } })],
    ['get', ['publicKey', 'extensions', 'prf', 'eval', 'first'], '256bytes', () => new Uint8Array(256)],
    ['get', ['publicKey', 'extensions', 'prf', 'eval', 'first'], '257bytes', () => new Uint8Array(257)],
    ['get', ['publicKey', 'extensions', 'prf', 'eval', 'second'], '257bytes', () => new Uint8Array(257)],
    ['get', ['publicKey', 'extensions', 'prf'], 'evalByCredential257bytes', () => ({ evalByCredential: { [b64url(knownId)]: { first: new Uint8Array(257) } } })],
  ];

  // Requests wrong in two ways: which refusal comes first (Chromium: Blink's before the rp.id check, its browser
  // process's after; Firefox: the rp.id first). Each edit is [path, name, make], applied in turn.
  const ext = (name) => ['publicKey', 'extensions', name];
  const OTHER_SITE = { create: [['publicKey', 'rp', 'id'], 'otherSite', () => 'example.com'], get: [['publicKey', 'rpId'], 'otherSite', () => 'example.com'] };
  const listOf = (n) => Array.from({ length: n }, (_, i) => ({ type: 'public-key', id: Uint8Array.of(i, ...OTHER_ID) }));
  const BIG_USER_ID = [['publicKey', 'user', 'id'], '65bytes', () => new Uint8Array(65)];
  const TWICE = [
    ['create', [OTHER_SITE.create, [ext('appid'), 'theOrigin', () => location.origin]]],
    ['create', [OTHER_SITE.create, [ext('largeBlob'), 'read', () => ({ read: true })]]],
    ['create', [OTHER_SITE.create, [ext('prf'), 'evalByCredential', () => ({ evalByCredential: {} })]]],
    ['create', [OTHER_SITE.create, [ext('prf'), 'eval257bytes', () => ({ eval: { first: new Uint8Array(257) } })]]],
    ['create', [OTHER_SITE.create, [ext('appidExclude'), 'notAURL', () => 'not a URL']]],
    ['create', [OTHER_SITE.create, [ext('enforceCredentialProtectionPolicy'), 'true', () => true]]],
    ['create', [OTHER_SITE.create, BIG_USER_ID]],
    ['create', [OTHER_SITE.create, [['publicKey', 'pubKeyCredParams'], 'onlyUnknownType', () => [{ type: 'x', alg: -7 }]]]],
    ['create', [BIG_USER_ID, [ext('largeBlob'), 'read', () => ({ read: true })]]],
    ['get', [OTHER_SITE.get, [ext('credProps'), 'true', () => true]]],
    ['get', [OTHER_SITE.get, [ext('largeBlob'), 'support', () => ({ support: 'required' })]]],
    ['get', [OTHER_SITE.get, [ext('largeBlob'), 'readAndWrite', () => ({ read: true, write: new Uint8Array([1]) })]]],
    ['get', [OTHER_SITE.get, [ext('prf'), 'evalByCredentialNotAllowed', () => ({ evalByCredential: { AQID: { first: new Uint8Array([1]) } } })]]],
    ['get', [OTHER_SITE.get, [ext('prf'), 'eval257bytes', () => ({ eval: { first: new Uint8Array(257) } })]]],
    ['get', [OTHER_SITE.get, [ext('appid'), 'notAURL', () => 'not a URL']]],
    ['get', [[['publicKey', 'allowCredentials'], '65entries', () => listOf(65)], [ext('prf'), 'eval257bytes', () => ({ eval: { first: new Uint8Array(257) } })]]],
    ['create', [[['publicKey', 'excludeCredentials'], '65entries', () => listOf(65)], [ext('appidExclude'), 'notAURL', () => 'not a URL']]],
  ];

  function variants() {
    const out = [];
    for (const [op, path] of MEMBERS) {
      for (const name of Object.keys(VALUES)) out.push({ id: `${op} ${path.join('.')} = ${name}`, op, path, make: VALUES[name] });
    }
    for (const [op, path, name, make] of SPECIAL) out.push({ id: `${op} ${path.join('.')} = ${name}`, op, path, make });
    for (const [op, edits] of TWICE) {
      const id = `${op} ${edits.map(([path, name]) => `${path.join('.')} = ${name}`).join(', ')}`;
      out.push({ id, op, path: edits[0][0], edits: edits.map(([path, , make]) => ({ path, make })) });
    }
    return out;
  }

  // The valid value of a member the base request lacks, by "op path"; made fresh for each variant.
  const VALID = {
    'get publicKey.extensions.appid': () => location.origin,
    'create publicKey.extensions.appidExclude': () => location.origin,
    'create publicKey.extensions.credentialProtectionPolicy': () => 'userVerificationOptional',
    'create publicKey.extensions.enforceCredentialProtectionPolicy': () => false,
    'create publicKey.extensions.credBlob': () => new Uint8Array([1, 2, 3]),
    'get publicKey.extensions.getCredBlob': () => false,
    'create publicKey.extensions.minPinLength': () => false,
    'create publicKey.extensions.hmacCreateSecret': () => false,
    'create publicKey.extensions.uvm': () => false,
    'create publicKey.extensions.prf': () => ({}),
    'get publicKey.extensions.prf': () => ({ eval: { first: CHALLENGE.slice() } }),
    'get publicKey.extensions.prf.eval': () => ({ first: CHALLENGE.slice() }),
    'get publicKey.extensions.prf.evalByCredential': () => ({}),
    'create publicKey.extensions.largeBlob': () => ({ support: 'preferred' }),
    'get publicKey.extensions.largeBlob': () => ({ read: false }),
  };

  /** `target` behind Proxies that log every property read, as "o.publicKey.rp.name", into `log`. */
  function logged(target, path, log) {
    return new Proxy(target, {
      get(t, key, receiver) {
        const where = `${path}.${String(key)}`;
        log.push(where);
        const value = Reflect.get(t, key, receiver);
        const plain = value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)
          && !(value instanceof ArrayBuffer) && !(value instanceof AbortSignal);
        return plain ? logged(value, where, log) : value;
      },
    });
  }

  /** Sets the member at `path` of fresh valid options to the variant's value (or a throwing getter), or each
   *  of its edits in turn; a member on the way that the base request lacks gets its VALID value first. */
  function optionsFor(variant) {
    const options = variant.op === 'create' ? baseCreate() : baseGet();
    if (variant.make === 'logged') return logged(options, 'o', variant.reads = []);
    for (const { path, make } of variant.edits || [variant]) setMember(options, variant.op, path, make);
    return options;
  }

  function setMember(options, op, path, make) {
    let holder = options;
    const validAt = (depth) => VALID[`${op} ${path.slice(0, depth + 1).join('.')}`];
    for (let depth = 0; depth < path.length - 1; depth++) {
      if (holder[path[depth]] === undefined && validAt(depth)) holder[path[depth]] = validAt(depth)();
      holder = holder[path[depth]];
    }
    const key = path[path.length - 1];
    if (holder[key] === undefined && validAt(path.length - 1)) holder[key] = validAt(path.length - 1)();
    const valid = holder[key];
    if (make === 'throwing') {
      Object.defineProperty(holder, key, { get() { throw new Thrown('thrown by a getter'); }, enumerable: true, configurable: true });
    } else {
      holder[key] = make(valid);
    }
  }

  // ---- What a ceremony used ----------------------------------------------------------------------------------------

  /** The COSE "alg" (key 3) of the credential public key in attested credential data: a minimal CBOR reader. */
  function coseAlg(authData) {
    const bytes = new Uint8Array(authData);
    let at = 37 + 16;
    const idLength = (bytes[at] << 8) | bytes[at + 1];
    at += 2 + idLength;
    function head() {
      const initial = bytes[at++];
      const major = initial >> 5;
      let value = initial & 31;
      if (value === 24) value = bytes[at++];
      else if (value === 25) { value = (bytes[at] << 8) | bytes[at + 1]; at += 2; }
      else if (value === 26) { value = ((bytes[at] << 24) >>> 0) + (bytes[at + 1] << 16) + (bytes[at + 2] << 8) + bytes[at + 3]; at += 4; }
      return [major, value];
    }
    function item() {
      const [major, value] = head();
      if (major === 0) return value;
      if (major === 1) return -1 - value;
      if (major === 2 || major === 3) { at += value; return null; }
      if (major === 4) { for (let i = 0; i < value; i++) item(); return null; }
      if (major === 5) { const map = new Map(); for (let i = 0; i < value; i++) map.set(item(), item()); return map; }
      return value;
    }
    const key = item();
    return key instanceof Map ? key.get(3) : null;
  }

  async function ceremony(credential, op) {
    const response = credential.response;
    const clientData = JSON.parse(new TextDecoder().decode(response.clientDataJSON));
    const authData = op === 'create' ? response.getAuthenticatorData() : response.authenticatorData;
    const flags = new Uint8Array(authData)[32];
    const used = {
      clientData: { type: clientData.type, challenge: clientData.challenge, origin: clientData.origin, crossOrigin: clientData.crossOrigin ?? false },
      rpIdHash: hex(authData.slice(0, 32)),
      flags: { UP: Boolean(flags & 1), AT: Boolean(flags & 64), ED: Boolean(flags & 128) },
    };
    if (op === 'create') used.alg = coseAlg(authData);
    return used;
  }

  function describeError(error) {
    if (error instanceof Thrown) return { thrown: error.message };
    return { name: error && error.name, message: error && error.message, domException: error instanceof DOMException };
  }

  async function attempt(variant) {
    let options;
    try {
      options = optionsFor(variant);
    } catch (error) {
      return { outcome: 'unbuildable', error: String(error) };
    }
    // Our own signal ends a request still open after PENDING_MS, unless the variant is about the signal.
    const controller = new AbortController();
    if (!variant.path.includes('signal')) options.signal = controller.signal;
    let timer;
    const pending = new Promise((resolve) => { timer = setTimeout(() => resolve({ outcome: 'pending' }), PENDING_MS); });
    let call;
    try {
      call = navigator.credentials[variant.op](options);
    } catch (error) {
      clearTimeout(timer);
      return { outcome: 'threw', ...describeError(error) };
    }
    const settled = call.then(
      async (credential) => ({ outcome: 'resolved', type: credential && credential.type, used: credential && credential.response ? await ceremony(credential, variant.op) : null }),
      (error) => ({ outcome: 'rejected', ...describeError(error) }));
    const result = await Promise.race([settled, pending]);
    clearTimeout(timer);
    // Which members were read, in which order, how often (setting our signal above reads nothing).
    if (variant.reads) result.reads = variant.reads.slice();
    if (result.outcome === 'pending') {
      controller.abort();
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, PENDING_MS))]);
    }
    return result;
  }

  async function prepare() {
    const made = await navigator.credentials.create(baseCreate());
    knownId = new Uint8Array(made.rawId);
    return { id: b64url(knownId), origin: location.origin };
  }

  /** Runs variants [start, end) and answers {id: result}; the first call makes the credential get() uses. */
  async function run({ start = 0, end = Infinity } = {}) {
    if (!knownId) await prepare();
    const out = {};
    for (const variant of variants().slice(start, end)) out[variant.id] = await attempt(variant);
    return out;
  }

  window.matrix = { run, count: () => variants().length, ids: () => variants().map((v) => v.id) };
})();
