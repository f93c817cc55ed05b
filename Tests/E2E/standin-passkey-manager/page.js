/*
 * page.js — MAIN world, document_start, all frames: the page half of a stand-in password manager, made to behave
 * as the page scripts of real ones do (read in Bitwarden's fido2-page-script, Proton Pass's webauthn hooks and
 * KeePassXC-Browser's passkeys.js), so the end-to-end tests can put the bridge beside one:
 *   - it keeps what it found at navigator.credentials.create/get, bound to navigator.credentials (whatever was
 *     there: the browser's own functions, or the bridge's if the bridge's page script ran first);
 *   - it assigns its own create/get on the navigator.credentials object itself (own properties, shadowing the
 *     prototype), and replaces PublicKeyCredential.isConditionalMediationAvailable and getClientCapabilities with
 *     ones that say yes where it can serve and ask what it found otherwise;
 *   - a request without publicKey goes to what it found; a publicKey request is offered to its authenticator
 *     (authenticator.js, the isolated world), which serves the sites it keeps passkeys for and declines the rest;
 *     a declined request goes to what it found, with the very options object it was given (as Bitwarden and
 *     Proton Pass hand theirs on), or, where style.js says so, with a copy of them;
 *   - conditional mediation (autofill) on its sites: answered with its passkey when it has one (as Proton Pass
 *     does), else handed to what it found; or, where its site list says so (sites.js), its answer raced against
 *     what it found (as Bitwarden does).
 * With style.js saying "replace", it does as KeePassXC-Browser does instead: once its vault has answered (after
 * document_start), it puts an object of its own at navigator.credentials whose create/get call the container's
 * functions at call time.
 * The functions it installs carry `__standinPasskeyManager === true`, so a test can tell whose function the
 * page sees on top, and `__standinFound` ("bridge" or "browser"): whose functions it found, i.e. which page script
 * ran first.
 */
(function () {
  'use strict';

  const CHANNEL = 'standin-passkey-manager';
  const creds = navigator.credentials;
  const PKC = window.PublicKeyCredential;
  if (!creds || typeof creds.create !== 'function' || typeof creds.get !== 'function' || typeof PKC !== 'function') return;

  // "assign" (Bitwarden's and Proton Pass's way) or "replace" (KeePassXC-Browser's), as style.js says.
  const replaces = globalThis.STANDIN_STYLE === 'replace';
  // Whether it hands a declined request on with a copy of its options (style.js) instead of the object itself.
  const copies = globalThis.STANDIN_COPIES === true;
  // What it hands on to: bound copies of what it found now, or the container's functions looked up at each call.
  const found = replaces
    ? { create: (options) => creds.create(options), get: (options) => creds.get(options) }
    : { create: creds.create.bind(creds), get: creds.get.bind(creds) };
  const foundConditional = typeof PKC.isConditionalMediationAvailable === 'function'
    ? PKC.isConditionalMediationAvailable.bind(PKC) : null;
  const foundCapabilities = typeof PKC.getClientCapabilities === 'function' ? PKC.getClientCapabilities.bind(PKC) : null;

  // ---- The isolated world, by window messages ------------------------------------------------------------------
  let nextId = 0;
  const waiting = new Map();
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.channel !== CHANNEL || data.dir !== 'to-page') return;
    const resolve = waiting.get(data.id);
    if (resolve) {
      waiting.delete(data.id);
      resolve(data.answer);
    }
  });

  function ask(kind, request) {
    const id = `${Date.now()}-${nextId++}`;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      window.postMessage({ channel: CHANNEL, dir: 'to-authenticator', id, kind, request }, window.origin);
    });
  }

  // ---- Requests, reduced to what the authenticator needs (structured-cloneable) --------------------------------
  function bytes(source) {
    if (source === undefined || source === null) return null;
    if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength).slice();
    return new Uint8Array(source).slice();
  }

  function describe(kind, publicKey) {
    const ids = (list) => Array.from(list || [], (descriptor) => bytes(descriptor.id));
    if (kind === 'create') {
      return {
        challenge: bytes(publicKey.challenge),
        rpId: publicKey.rp && publicKey.rp.id,
        user: { id: bytes(publicKey.user.id), name: String(publicKey.user.name) },
        excludeCredentials: ids(publicKey.excludeCredentials),
      };
    }
    return { challenge: bytes(publicKey.challenge), rpId: publicKey.rpId, allowCredentials: ids(publicKey.allowCredentials) };
  }

  // ---- Credentials as password managers make them: plain objects on the browser's prototypes --------------------
  const b64url = (data) => btoa(String.fromCharCode(...new Uint8Array(data)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const buffer = (data) => new Uint8Array(data).buffer;

  function credential(made, response, json) {
    const rawId = buffer(made.rawId);
    const result = {
      id: b64url(rawId), rawId, type: 'public-key', authenticatorAttachment: 'platform', response,
      getClientExtensionResults: () => ({}),
      toJSON: () => ({ id: b64url(rawId), rawId: b64url(rawId), type: 'public-key', authenticatorAttachment: 'platform',
        clientExtensionResults: {}, response: json }),
    };
    return Object.setPrototypeOf(result, PKC.prototype);
  }

  function registration(made) {
    const response = {
      clientDataJSON: buffer(made.clientDataJSON), attestationObject: buffer(made.attestationObject),
      getAuthenticatorData: () => buffer(made.authenticatorData), getPublicKey: () => buffer(made.publicKey),
      getPublicKeyAlgorithm: () => -7, getTransports: () => ['hybrid', 'internal'],
    };
    Object.setPrototypeOf(response, window.AuthenticatorAttestationResponse.prototype);
    return credential(made, response, {
      clientDataJSON: b64url(made.clientDataJSON), attestationObject: b64url(made.attestationObject),
      authenticatorData: b64url(made.authenticatorData), publicKey: b64url(made.publicKey), publicKeyAlgorithm: -7,
      transports: ['hybrid', 'internal'],
    });
  }

  function assertion(made) {
    const response = {
      clientDataJSON: buffer(made.clientDataJSON), authenticatorData: buffer(made.authenticatorData),
      signature: buffer(made.signature), userHandle: buffer(made.userHandle),
    };
    Object.setPrototypeOf(response, window.AuthenticatorAssertionResponse.prototype);
    return credential(made, response, {
      clientDataJSON: b64url(made.clientDataJSON), authenticatorData: b64url(made.authenticatorData),
      signature: b64url(made.signature), userHandle: b64url(made.userHandle),
    });
  }

  // ---- The wrappers ------------------------------------------------------------------------------------------
  async function serve(kind, options) {
    if (!options || !('publicKey' in options)) return found[kind](options);
    const signal = options.signal;
    if (signal && signal.aborted) throw signal.reason;
    if (kind === 'get' && options.mediation === 'conditional' && (await ask('serves', {})).races) return race(options);
    const answer = await ask(kind, { ...describe(kind, options.publicKey), mediation: options.mediation });
    if (answer.error) throw new DOMException(answer.error.message, answer.error.name);
    if (!answer.credential) {   // declined: not one of its sites, or no passkey here
      return found[kind](copies ? { ...options, publicKey: { ...options.publicKey } } : options);
    }
    return kind === 'create' ? registration(answer.credential) : assertion(answer.credential);
  }

  /** Conditional mediation as Bitwarden's page script does it: its own answer raced against what it found (with a
   *  signal of its own), whichever settles first, the other aborted. Its own never settles where it has no passkey. */
  async function race(options) {
    const controller = new AbortController();
    const outer = options.signal;
    if (outer) outer.addEventListener('abort', () => controller.abort(outer.reason));
    const own = ask('get', { ...describe('get', options.publicKey), mediation: 'conditional' })
      .then((answer) => (answer.credential ? assertion(answer.credential) : new Promise(() => {})));
    try {
      return await Promise.race([own, found.get({ ...options, signal: controller.signal })]);
    } finally {
      controller.abort();
    }
  }

  const wrappers = {
    create(options) { return serve('create', options); },
    get(options) { return serve('get', options); },
  };
  function installWrappers() {
    // Tests read whose functions it found (the load order) from its wrappers' `__standinFound`.
    const foundWhose = creds.get.__webauthnBridge === true ? 'bridge' : 'browser';
    for (const kind of ['create', 'get']) {
      Object.defineProperty(wrappers[kind], '__standinPasskeyManager', { value: true });
      Object.defineProperty(wrappers[kind], '__standinFound', { value: foundWhose });
      if (!replaces) creds[kind] = wrappers[kind];
    }
    if (replaces) Object.defineProperty(navigator, 'credentials', { value: { create: wrappers.create, get: wrappers.get } });
  }
  // KeePassXC-Browser replaces navigator.credentials only once its settings have come back: after the page began.
  if (replaces) ask('serves', {}).then(installWrappers);
  else installWrappers();
  // A test hook no real one has: its functions, for a test to call where the bridge's are on top of them.
  Object.defineProperty(window, 'standinPasskeyManager', { value: Object.freeze({ ...wrappers }) });

  // Yes where it serves (its authenticator says whether this site is one of its own), what it found elsewhere.
  PKC.isConditionalMediationAvailable = async function isConditionalMediationAvailable() {
    if ((await ask('serves', {})).serves) return true;
    return foundConditional ? foundConditional() : false;
  };
  if (foundCapabilities) {
    PKC.getClientCapabilities = async function getClientCapabilities() {
      const below = await foundCapabilities();
      if (!(await ask('serves', {})).serves) return below;
      return { ...below, conditionalGet: true, passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true };
    };
  }
})();
