/*
 * webauthn.js — document_start, top frame only: a stand-in password manager that wraps navigator.credentials as
 * Proton Pass does (read in its webauthn content script, its bridge utilities and both of its manifests):
 *   - Firefox: an ISOLATED-world content script. It reaches the page's own objects through `window.wrappedJSObject`,
 *     keeps the page's create/get bound to the page's navigator.credentials, and defines its own there with
 *     `exportFunction` (own properties of that object, as an assignment would make); its answers are page promises
 *     (`new window.Promise`) settled with `cloneInto` copies, so the page gets plain objects, not
 *     PublicKeyCredentials, and the options it is handed are read through Xrays.
 *   - Chromium: the same script in the page's world (the harness adds `world: "MAIN"` to this entry, as Proton
 *     Pass's Chromium manifest has it), where exportFunction and cloneInto do not exist: plain assignment, no copies.
 * A publicKey request goes to the vault (authenticator.js: the first stand-in's, copied in by the harness, with
 * sites.js) by window messages; what the vault declines (not one of its sites, no passkey here) goes to what it
 * found, with the options it was given. Conditional requests are answered like any other, as Proton Pass does. It
 * replaces isConditionalMediationAvailable and isUserVerifyingPlatformAuthenticatorAvailable (yes where it serves,
 * else what it found), not getClientCapabilities.
 * Test hooks no real one has: `window.standinPasskeyManager` (its create/get, for a test to call wherever the
 * bridge's are) and `__standinFound` on its functions: whose it found, "bridge" or "browser" (the script order).
 */
(function () {
  'use strict';

  const CHANNEL = 'standin-passkey-manager';   // the vault's (authenticator.js)
  const page = window.wrappedJSObject || window;
  const creds = page.navigator.credentials;
  const PKC = page.PublicKeyCredential;
  if (!creds || typeof creds.create !== 'function' || typeof creds.get !== 'function' || !PKC) return;

  const isolated = typeof exportFunction === 'function';
  /** `fn` as `target[name]` in the page: exported from this world in Firefox, assigned in the page's own. */
  const exporter = (fn, target, name) => (isolated ? exportFunction(fn, target, { defineAs: name }) : (target[name] = fn));
  /** A copy of `value` the page owns (functions exported) in Firefox; `value` itself in the page's world. */
  const clone = (value) => (isolated ? cloneInto(value, window, { cloneFunctions: true, wrapReflectors: true }) : value);
  const promise = (executor) => new window.Promise(executor);
  const waived = (fn) => (isolated ? XPCNativeWrapper.unwrap(fn) : fn);

  const found = { create: creds.create.bind(creds), get: creds.get.bind(creds) };
  const foundWhose = creds.get.__webauthnBridge === true ? 'bridge' : 'browser';
  const foundConditional = typeof PKC.isConditionalMediationAvailable === 'function'
    ? PKC.isConditionalMediationAvailable.bind(PKC) : null;
  const foundPlatform = typeof PKC.isUserVerifyingPlatformAuthenticatorAvailable === 'function'
    ? PKC.isUserVerifyingPlatformAuthenticatorAvailable.bind(PKC) : null;

  // ---- The vault, by window messages ---------------------------------------------------------------------------
  let nextId = 0;
  const waiting = new Map();
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.channel !== CHANNEL || data.dir !== 'to-page') return;
    const resolve = waiting.get(data.id);
    if (resolve) {
      waiting.delete(data.id);
      resolve(structuredClone(data.answer));   // Firefox: this world's own copy of the page's clone
    }
  });

  function ask(kind, request) {
    const id = `isolated-${Date.now()}-${nextId++}`;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      window.postMessage({ channel: CHANNEL, dir: 'to-authenticator', id, kind, request }, window.origin);
    });
  }

  // ---- Requests as the vault takes them, read from the page's options (Xrays in Firefox) -----------------------
  /** A BufferSource's bytes, this world's own; the page's constructors recognise the page's buffers. */
  function bytes(source) {
    if (source === undefined || source === null) return null;
    const view = source instanceof page.ArrayBuffer || source instanceof ArrayBuffer
      ? new page.Uint8Array(source) : new page.Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    return Uint8Array.from(view);
  }

  function describe(kind, publicKey) {
    const ids = (list) => Array.from(list || [], (descriptor) => bytes(descriptor.id));
    if (kind === 'create') {
      return {
        challenge: bytes(publicKey.challenge), rpId: publicKey.rp && publicKey.rp.id,
        user: { id: bytes(publicKey.user.id), name: String(publicKey.user.name) },
        excludeCredentials: ids(publicKey.excludeCredentials),
      };
    }
    return { challenge: bytes(publicKey.challenge), rpId: publicKey.rpId, allowCredentials: ids(publicKey.allowCredentials) };
  }

  // ---- Credentials: plain objects, copied into the page in Firefox ----------------------------------------------
  const b64url = (data) => btoa(String.fromCharCode(...new Uint8Array(data)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const buffer = (data) => new Uint8Array(data).buffer;
  // The vault's byte fields each response carries as attributes (and in its JSON), by ceremony.
  const FIELDS = {
    create: ['clientDataJSON', 'attestationObject'],
    get: ['clientDataJSON', 'authenticatorData', 'signature', 'userHandle'],
  };

  /** The vault's answer as the object the page gets: on the browser's prototypes in the page's world, as Proton
   *  Pass sets them; in Firefox a cloneInto copy, which keeps no prototype. */
  function credential(kind, made) {
    const response = {};
    const json = {};
    for (const field of FIELDS[kind]) {
      response[field] = buffer(made[field]);
      json[field] = b64url(made[field]);
    }
    if (kind === 'create') {
      Object.assign(response, {
        getAuthenticatorData: () => clone(buffer(made.authenticatorData)), getPublicKey: () => clone(buffer(made.publicKey)),
        getPublicKeyAlgorithm: () => -7, getTransports: () => clone(['hybrid', 'internal']),
      });
      Object.assign(json, { authenticatorData: b64url(made.authenticatorData), publicKey: b64url(made.publicKey),
        publicKeyAlgorithm: -7, transports: ['hybrid', 'internal'] });
    }
    const rawId = buffer(made.rawId);
    const result = {
      id: b64url(rawId), rawId, type: 'public-key', authenticatorAttachment: 'platform', response,
      getClientExtensionResults: () => clone({}),
      toJSON: () => clone({ id: b64url(rawId), rawId: b64url(rawId), type: 'public-key',
        authenticatorAttachment: 'platform', clientExtensionResults: {}, response: json }),
    };
    if (!isolated) {
      const responseType = kind === 'create' ? page.AuthenticatorAttestationResponse : page.AuthenticatorAssertionResponse;
      Object.setPrototypeOf(response, responseType.prototype);
      Object.setPrototypeOf(result, PKC.prototype);
    }
    return clone(result);
  }

  // ---- The wrappers ------------------------------------------------------------------------------------------
  const serve = (kind) => (options) => promise(async (resolve, reject) => {
    try {
      if (!options || !options.publicKey) return resolve(found[kind](options));
      if (options.signal && options.signal.aborted) return reject(new page.DOMException('The operation was aborted.', 'AbortError'));
      const answer = await ask(kind, describe(kind, options.publicKey));
      if (answer.error) return reject(new page.DOMException(answer.error.message, answer.error.name));
      if (!answer.credential) return resolve(found[kind](options));   // declined: not its site, or no passkey here
      return resolve(credential(kind, answer.credential));
    } catch (error) {
      return reject(new page.DOMException(`The stand-in failed: ${error && error.message}`, 'NotAllowedError'));
    }
  });

  const answerOr = (foundAnswer) => () => promise(async (resolve) => {
    resolve(Boolean((await ask('serves', {})).serves || (foundAnswer && (await foundAnswer()))));
  });

  for (const kind of ['create', 'get']) {
    const exported = exporter(serve(kind), creds, kind);
    Object.defineProperty(waived(exported), '__standinFound', { value: foundWhose });
  }
  exporter(answerOr(foundConditional), PKC, 'isConditionalMediationAvailable');
  exporter(answerOr(foundPlatform), PKC, 'isUserVerifyingPlatformAuthenticatorAvailable');

  const hook = new page.Object();
  exporter(serve('create'), hook, 'create');
  exporter(serve('get'), hook, 'get');
  page.standinPasskeyManager = hook;
})();
