// The relying party's page code, as a real site would write it: fetch options, call WebAuthn, send the
// credential to the server, which verifies it with py_webauthn. Every function resolves (never rejects) to a
// plain JSON-able object, so the test gets the DOMException name or the server's verdict either way.
'use strict';

(function () {
  const b64url = {
    encode(buffer) {
      const bytes = new Uint8Array(buffer);
      let text = '';
      for (const b of bytes) text += String.fromCharCode(b);
      return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    },
    decode(text) {
      const raw = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
      return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
    },
  };

  async function post(path, body) {
    const response = await fetch(path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    return response.json();
  }

  // WebAuthn JSON (from the server) → the BufferSource options the API takes. Done by hand on purpose:
  // PublicKeyCredential.parse*OptionsFromJSON would hide encoding bugs behind the same code under test.
  function creationOptions(json) {
    return {
      ...json,
      challenge: b64url.decode(json.challenge),
      user: { ...json.user, id: b64url.decode(json.user.id) },
      excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
    };
  }

  function requestOptions(json) {
    return {
      ...json,
      challenge: b64url.decode(json.challenge),
      allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
    };
  }

  // Credential → WebAuthn JSON through the ArrayBuffer attributes (the other path is credential.toJSON()).
  function encodeRegistration(cred) {
    return {
      id: cred.id, rawId: b64url.encode(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment,
      clientExtensionResults: cred.getClientExtensionResults(),
      response: {
        clientDataJSON: b64url.encode(cred.response.clientDataJSON),
        attestationObject: b64url.encode(cred.response.attestationObject),
        transports: cred.response.getTransports(),
      },
    };
  }

  function encodeAssertion(cred) {
    const r = cred.response;
    return {
      id: cred.id, rawId: b64url.encode(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment,
      clientExtensionResults: cred.getClientExtensionResults(),
      response: {
        clientDataJSON: b64url.encode(r.clientDataJSON),
        authenticatorData: b64url.encode(r.authenticatorData),
        signature: b64url.encode(r.signature),
        userHandle: r.userHandle ? b64url.encode(r.userHandle) : null,
      },
    };
  }

  function failure(error, elapsedMs) {
    return {
      ok: false, elapsedMs,
      name: error && error.name, message: String(error && error.message),
      isDOMException: error instanceof DOMException, isTypeError: error instanceof TypeError,
    };
  }

  // Each probe of the returned object on its own: one missing method must not hide the others' results.
  function probe(fn) {
    try { return fn(); } catch (error) { return `threw ${error && error.name}: ${error && error.message}`; }
  }

  function shapeOf(cred, kind) {
    const shape = {
      instanceofPublicKeyCredential: cred instanceof PublicKeyCredential,
      type: probe(() => cred.type),
      idMatchesRawId: probe(() => cred.id === b64url.encode(cred.rawId)),
      authenticatorAttachment: probe(() => cred.authenticatorAttachment),
      clientExtensionResults: probe(() => cred.getClientExtensionResults()),
      hasToJSON: typeof cred.toJSON === 'function',
    };
    if (kind === 'create') {
      shape.responseInstanceof = cred.response instanceof AuthenticatorAttestationResponse;
      shape.transports = probe(() => cred.response.getTransports());
      shape.publicKeyAlgorithm = probe(() => cred.response.getPublicKeyAlgorithm());
      shape.publicKeyBytes = probe(() => cred.response.getPublicKey().byteLength);
      shape.authenticatorDataBytes = probe(() => cred.response.getAuthenticatorData().byteLength);
    } else {
      shape.responseInstanceof = cred.response instanceof AuthenticatorAssertionResponse;
    }
    return shape;
  }

  // A signal for the call: none, already aborted, aborted after `abortAfterMs`, or (`abortable`) aborted when a test
  // calls window.abortCall().
  function signalFor({ abortAfterMs, preAborted, abortable }) {
    if (abortAfterMs === undefined && !preAborted && !abortable) return undefined;
    const controller = new AbortController();
    if (preAborted) controller.abort();
    else if (abortable) window.abortCall = () => controller.abort();
    else setTimeout(() => controller.abort(), abortAfterMs);
    return controller.signal;
  }

  // The function the page calls: the live one, or the reference an inline script captured at load.
  function api(kind, via) {
    if (via === 'captured') return kind === 'create' ? window.capturedCreate : window.capturedGet;
    return kind === 'create' ? navigator.credentials.create : navigator.credentials.get;
  }

  // A request that never settles would only show up as the harness's protocol timeout; this names it.
  const CALL_DEADLINE_MS = 20000;
  const DEADLINE = Symbol('deadline');
  function withDeadline(promise, ms) {
    let timer;
    const expired = new Promise((resolve) => { timer = setTimeout(() => resolve(DEADLINE), ms); });
    return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
  }

  async function ceremony(kind, args) {
    const optionsPath = kind === 'create' ? '/register/options' : '/login/options';
    const verifyPath = kind === 'create' ? '/register/verify' : '/login/verify';
    const json = await post(optionsPath, args);
    if (json.error) return { ok: false, stage: 'options', error: json.error };
    const publicKey = kind === 'create' ? creationOptions(json) : requestOptions(json);
    const signal = signalFor(args);
    const start = performance.now();
    let cred;
    try {
      const pending = api(kind, args.via).call(navigator.credentials, {
        publicKey, ...(signal && { signal }), ...(args.mediation && { mediation: args.mediation }) });
      // How an abortable call ends, even after the deadline gave up on it: a test awaits this after abortCall().
      if (args.abortable) window.abortableCallEnd = pending.then(() => 'settled', (error) => error.name);
      cred = await withDeadline(pending, args.deadlineMs || CALL_DEADLINE_MS);
    } catch (error) {
      return failure(error, performance.now() - start);
    }
    const elapsedMs = performance.now() - start;
    if (cred === DEADLINE) return { ok: false, stage: 'deadline', error: `${kind}() did not settle in ${elapsedMs} ms` };
    const shape = shapeOf(cred, kind);
    let encoded;
    try {
      encoded = args.useToJSON ? cred.toJSON() : (kind === 'create' ? encodeRegistration(cred) : encodeAssertion(cred));
    } catch (error) {
      return { ok: false, stage: 'encode', elapsedMs, shape, ...failure(error, elapsedMs) };
    }
    const verdict = await post(verifyPath, { credential: JSON.parse(JSON.stringify(encoded)) });
    return { ok: true, elapsedMs, shape, verdict };
  }

  // Runs an rp.* call inside a frame of another origin and resolves to its result.
  function inFrame({ frameOrigin, action, args, allow }) {
    return new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.allow = allow;
      const timer = setTimeout(() => resolve({ ok: false, stage: 'frame', error: 'no reply from the frame' }), 25000);
      addEventListener('message', function onMessage(event) {
        if (event.source !== frame.contentWindow || event.origin !== frameOrigin) return;
        if (event.data && event.data.e2eReady) {
          frame.contentWindow.postMessage({ e2eCall: { action, args } }, frameOrigin);
        } else if (event.data && 'e2eReply' in event.data) {
          clearTimeout(timer);
          removeEventListener('message', onMessage);
          resolve(event.data.e2eReply);
        }
      });
      frame.src = `${frameOrigin}/frame.html`;
      document.body.appendChild(frame);
    });
  }

  window.rp = {
    register: (args) => ceremony('create', args),
    signIn: (args) => ceremony('get', args),
    inFrame,
  };
})();
