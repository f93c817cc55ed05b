/*
 * authenticator.js — ISOLATED world, after sites.js: the stand-in password manager's vault and authenticator.
 * Answers page.js's requests for this document's origin (read here, where the page cannot change it): a site not
 * in STANDIN_SITES is declined, so page.js hands the request to what it found; on its sites it makes ES256
 * passkeys with WebCrypto ("none" attestation, AAGUID "standin-passkeys", the BE/BS flags of a synced passkey),
 * keeps them in storage.local, and signs in with the one the request allows (or the site's first, for a
 * discoverable request). A sign-in it has no passkey for is declined too. Every credential is a real one: the
 * E2E relying party verifies it with py_webauthn.
 */
(function () {
  'use strict';

  const CHANNEL = 'standin-passkey-manager';
  const AAGUID = new TextEncoder().encode('standin-passkeys');   // 16 bytes
  const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 };
  const origin = window.origin;
  const serves = (globalThis.STANDIN_SITES || []).includes(origin);
  const races = serves && globalThis.STANDIN_RACES === true;
  const subtle = crypto.subtle;

  const b64url = (data) => btoa(String.fromCharCode(...new Uint8Array(data)))
    .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const fromB64url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  };
  // WebCrypto's results copied into this world's own arrays: in Firefox they belong to the page's compartment, and
  // slice()/subarray() of a view on one are refused ("Permission denied to access property \"constructor\"").
  const own = (buffer) => {
    const view = new Uint8Array(buffer);
    const copy = new Uint8Array(view.length);
    copy.set(view);
    return copy;
  };
  const sha256 = async (data) => own(await subtle.digest('SHA-256', data));

  // ---- The few CBOR items an attestation object and a COSE key need ---------------------------------------------
  function head(major, n) {
    if (n < 24) return Uint8Array.of((major << 5) | n);
    if (n < 0x100) return Uint8Array.of((major << 5) | 24, n);
    return Uint8Array.of((major << 5) | 25, n >> 8, n & 0xff);
  }
  function cbor(value) {
    if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
    if (typeof value === 'string') { const t = new TextEncoder().encode(value); return concat(head(3, t.length), t); }
    if (value instanceof Uint8Array) return concat(head(2, value.length), value);
    const entries = value instanceof Map ? [...value] : Object.entries(value);
    return concat(head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)]));
  }

  /** WebCrypto's raw r||s ECDSA signature as the DER SEQUENCE WebAuthn carries. */
  function derSignature(raw) {
    const integer = (half) => {
      let i = 0;
      while (i < half.length - 1 && half[i] === 0) i++;
      const body = half[i] & 0x80 ? concat(Uint8Array.of(0), half.subarray(i)) : half.subarray(i);
      return concat(Uint8Array.of(0x02, body.length), body);
    };
    const body = concat(integer(raw.subarray(0, 32)), integer(raw.subarray(32)));
    return concat(Uint8Array.of(0x30, body.length), body);
  }

  const clientData = (type, challenge) => new TextEncoder().encode(JSON.stringify({
    type, challenge: b64url(challenge), origin, crossOrigin: window.top !== window,
  }));

  async function vault() {
    return (await chrome.storage.local.get('passkeys')).passkeys || [];
  }

  async function register(request) {
    const rpId = request.rpId || location.hostname;
    const stored = await vault();
    const excluded = new Set(request.excludeCredentials.map(b64url));
    if (stored.some((p) => p.rpId === rpId && excluded.has(p.id))) {
      return { error: { name: 'InvalidStateError', message: 'The user attempted to register an authenticator that contains one of the credentials already registered with the relying party.' } };
    }
    const keys = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const pkcs8 = own(await subtle.exportKey('pkcs8', keys.privateKey));
    const point = own(await subtle.exportKey('raw', keys.publicKey));   // 0x04 || x || y
    const rawId = crypto.getRandomValues(new Uint8Array(16));
    const coseKey = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, point.slice(1, 33)], [-3, point.slice(33)]]));
    const authenticatorData = concat(await sha256(new TextEncoder().encode(rpId)),
      Uint8Array.of(FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS | FLAGS.AT), new Uint8Array(4), AAGUID,
      Uint8Array.of(0, rawId.length), rawId, coseKey);
    stored.push({ id: b64url(rawId), rpId, userHandle: b64url(request.user.id), key: b64url(pkcs8) });
    await chrome.storage.local.set({ passkeys: stored });
    return { credential: {
      rawId, clientDataJSON: clientData('webauthn.create', request.challenge), authenticatorData,
      attestationObject: cbor({ fmt: 'none', attStmt: {}, authData: authenticatorData }),
      publicKey: own(await subtle.exportKey('spki', keys.publicKey)),
    } };
  }

  async function signIn(request) {
    const rpId = request.rpId || location.hostname;
    const allowed = new Set(request.allowCredentials.map(b64url));
    const passkey = (await vault()).find((p) => p.rpId === rpId && (allowed.size === 0 || allowed.has(p.id)));
    if (!passkey) return {};
    const key = await subtle.importKey('pkcs8', fromB64url(passkey.key), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    const clientDataJSON = clientData('webauthn.get', request.challenge);
    const authenticatorData = concat(await sha256(new TextEncoder().encode(rpId)),
      Uint8Array.of(FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS), new Uint8Array(4));
    const signed = concat(authenticatorData, await sha256(clientDataJSON));
    const raw = own(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, signed));
    return { credential: {
      rawId: fromB64url(passkey.id), clientDataJSON, authenticatorData, signature: derSignature(raw),
      userHandle: fromB64url(passkey.userHandle),
    } };
  }

  async function answer(kind, request) {
    if (kind === 'serves') return { serves, races };
    if (!serves) return {};
    return kind === 'create' ? register(request) : signIn(request);
  }

  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.channel !== CHANNEL || data.dir !== 'to-authenticator') return;
    const { id, kind } = data;
    // Firefox hands this world the page's object through an Xray; a structured clone is this world's own.
    const request = structuredClone(data.request);
    answer(kind, request).then(
      (reply) => window.postMessage({ channel: CHANNEL, dir: 'to-page', id, answer: reply }, origin),
      (error) => window.postMessage({ channel: CHANNEL, dir: 'to-page', id,
        answer: { error: { name: 'NotAllowedError', message: String(error && error.message) } } }, origin));
  });
})();
