/*
 * codec.js — the one source of truth for turning WebAuthn values into protocol JSON and back.
 *
 * Runs in two places:
 *   - the page's MAIN world, as the first file of the same content-script entry as interceptor.js. It hands
 *     itself to interceptor.js through a symbol-keyed, non-enumerable property on globalThis that
 *     interceptor.js deletes at once; both run at document_start before any page script, so the page never
 *     sees it.
 *   - node's test runner, through CommonJS `module.exports` (no package.json, so .js is CommonJS there).
 *
 * It is pure: no postMessage, no DOM. Classes it must produce (PublicKeyCredential, DOMException, …) are
 * passed in as `env`, so tests can hand in stand-ins and the page hands in its own realm's classes.
 * It does not validate WebAuthn semantics (challenge length, rp.id rules …): the host is the WebAuthn
 * client and answers TypeError/SecurityError itself.
 */
(function (root) {
  'use strict';

  const CHANNEL = 'webauthn-bridge/v1';
  const MAX_DEPTH = 32;
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const LOOKUP = new Map();
  for (let i = 0; i < ALPHABET.length; i++) LOOKUP.set(ALPHABET.charCodeAt(i), i);

  // Captured now: page scripts run later and may replace these globals.
  const toStringTag = Object.prototype.toString;
  const isView = ArrayBuffer.isView;

  /** base64url without padding (RFC 4648 §5), as the protocol and WebAuthn L3 JSON use. */
  function toBase64url(bytes) {
    let out = '';
    let i = 0;
    for (; i + 2 < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + ALPHABET[n & 63];
    }
    const rest = bytes.length - i;
    if (rest === 1) {
      const n = bytes[i] << 16;
      out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63];
    } else if (rest === 2) {
      const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
      out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63];
    }
    return out;
  }

  /** Strict decoder: url alphabet only, no padding, no whitespace; throws TypeError otherwise. */
  function fromBase64url(text) {
    if (typeof text !== 'string' || text.length % 4 === 1) throw new TypeError('invalid base64url');
    const out = new Uint8Array(Math.floor((text.length * 3) / 4));
    let o = 0;
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < text.length; i++) {
      const v = LOOKUP.get(text.charCodeAt(i));
      if (v === undefined) throw new TypeError('invalid base64url');
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[o++] = (acc >>> bits) & 0xff;
      }
    }
    // Leftover bits must be zero, so every string has exactly one byte sequence.
    if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) throw new TypeError('invalid base64url');
    return out;
  }

  function isArrayBuffer(value) {
    return toStringTag.call(value) === '[object ArrayBuffer]';
  }

  function isBufferSource(value) {
    return isView(value) || isArrayBuffer(value);
  }

  /** The bytes a BufferSource denotes: a view's own window (byteOffset/byteLength), never its whole buffer. */
  function bufferSourceBytes(value) {
    if (isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (isArrayBuffer(value)) return new Uint8Array(value);
    throw new TypeError('not a BufferSource');
  }

  function isPlainObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  function isBinaryMarker(value) {
    return isPlainObject(value) && typeof value.__binary__ === 'string' && Object.keys(value).length === 1;
  }

  /**
   * A WebAuthn options value → protocol JSON. BufferSources become {"__binary__": …} (copied now, as the
   * spec copies them when the method is called); undefined members and functions are dropped as JSON drops
   * them. Cycles or absurd depth → TypeError, as WebIDL conversion would eventually fail too.
   */
  function encodeValue(value, depth = 0) {
    if (depth > MAX_DEPTH) throw new TypeError('options nested too deeply');
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : null;
    if (typeof value === 'bigint') throw new TypeError('BigInt is not allowed in WebAuthn options');
    if (typeof value !== 'object') return undefined; // undefined, function, symbol
    if (isBufferSource(value)) return { __binary__: toBase64url(bufferSourceBytes(value)) };
    if (Array.isArray(value)) {
      return value.map((item) => {
        const encoded = encodeValue(item, depth + 1);
        return encoded === undefined ? null : encoded;
      });
    }
    const out = {};
    for (const key of Object.keys(value)) {
      const encoded = encodeValue(value[key], depth + 1);
      if (encoded !== undefined) out[key] = encoded;
    }
    return out;
  }

  /** Protocol JSON → value with every {"__binary__"} turned into a fresh ArrayBuffer ('buffer') or a
   *  base64url string ('base64url', the L3 toJSON form). */
  function decodeValue(value, mode, depth = 0) {
    if (depth > MAX_DEPTH) throw new TypeError('reply nested too deeply');
    if (isBinaryMarker(value)) {
      const bytes = fromBase64url(value.__binary__);
      return mode === 'base64url' ? toBase64url(bytes) : bytes.slice().buffer;
    }
    if (Array.isArray(value)) return value.map((item) => decodeValue(item, mode, depth + 1));
    if (isPlainObject(value)) {
      const out = {};
      for (const key of Object.keys(value)) out[key] = decodeValue(value[key], mode, depth + 1);
      return out;
    }
    return value;
  }

  /**
   * The protocol request body for navigator.credentials.create/get. Only `publicKey` is sent: `signal` is
   * handled in the page, and `mediation` values other than "conditional" (which never reaches here) do not
   * change a modal request.
   */
  function buildRequest(type, options) {
    if (type !== 'create' && type !== 'get') throw new TypeError('unknown request type');
    const publicKey = options.publicKey;
    if (publicKey === null || typeof publicKey !== 'object' || isBufferSource(publicKey)) {
      throw new TypeError(`Failed to execute '${type}' on 'CredentialsContainer': publicKey is not an object.`);
    }
    return { type, options: encodeValue(publicKey) };
  }

  function requireBuffer(marker, what) {
    if (!isBinaryMarker(marker)) throw new TypeError(`host reply lacks ${what}`);
    return fromBase64url(marker.__binary__);
  }

  function optionalBuffer(marker, what) {
    return marker === undefined || marker === null ? null : requireBuffer(marker, what);
  }

  function asArrayBuffer(bytes) {
    return bytes === null ? null : bytes.slice().buffer;
  }

  function defineOwn(target, props) {
    for (const key of Object.keys(props)) {
      Object.defineProperty(target, key, { value: props[key], enumerable: false, writable: false, configurable: true });
    }
    return target;
  }

  function protoOf(ctor) {
    return ctor && ctor.prototype ? ctor.prototype : Object.prototype;
  }

  /**
   * A host `result.credential` → an object that passes `instanceof PublicKeyCredential` and
   * `instanceof AuthenticatorAttestationResponse/AuthenticatorAssertionResponse`. The native prototype
   * getters would throw "Illegal invocation" on such an object, so every attribute and method is an OWN
   * property that shadows them. Attributes are the same ArrayBuffer on each read ([SameObject]).
   */
  function buildCredential(frame, env) {
    if (!isPlainObject(frame) || frame.type !== 'public-key' || typeof frame.id !== 'string') {
      throw new TypeError('host reply is not a public-key credential');
    }
    const r = frame.response;
    if (!isPlainObject(r)) throw new TypeError('host reply lacks response');
    const isRegistration = r.attestationObject !== undefined;
    const rawId = requireBuffer(frame.rawId, 'rawId');
    const clientDataJSON = requireBuffer(r.clientDataJSON, 'clientDataJSON');
    const authenticatorData = requireBuffer(r.authenticatorData, 'authenticatorData');
    const attachment = typeof frame.authenticatorAttachment === 'string' ? frame.authenticatorAttachment : null;
    const extensionTree = isPlainObject(frame.clientExtensionResults) ? frame.clientExtensionResults : {};
    decodeValue(extensionTree, 'buffer'); // validate once, so a bad reply fails here and not in page code

    const buffers = {
      rawId: asArrayBuffer(rawId),
      clientDataJSON: asArrayBuffer(clientDataJSON),
      authenticatorData: asArrayBuffer(authenticatorData),
    };
    let response;
    let responseJSON;
    if (isRegistration) {
      const attestationObject = requireBuffer(r.attestationObject, 'attestationObject');
      const publicKey = optionalBuffer(r.publicKey, 'publicKey');
      const algorithm = Number.isInteger(r.publicKeyAlgorithm) ? r.publicKeyAlgorithm : null;
      if (algorithm === null) throw new TypeError('host reply lacks publicKeyAlgorithm');
      const transports = Array.isArray(r.transports) ? r.transports.filter((t) => typeof t === 'string') : [];
      const attestationBuffer = asArrayBuffer(attestationObject);
      const publicKeyBuffer = asArrayBuffer(publicKey);
      response = defineOwn(Object.create(protoOf(env.AuthenticatorAttestationResponse)), {
        clientDataJSON: buffers.clientDataJSON,
        attestationObject: attestationBuffer,
        getTransports() { return transports.slice(); },
        getAuthenticatorData() { return buffers.authenticatorData; },
        getPublicKey() { return publicKeyBuffer; },
        getPublicKeyAlgorithm() { return algorithm; },
      });
      responseJSON = () => {
        const json = {
          clientDataJSON: toBase64url(clientDataJSON),
          authenticatorData: toBase64url(authenticatorData),
          transports: transports.slice(),
        };
        // L3: publicKey is absent when the client does not understand the algorithm.
        if (publicKey !== null) json.publicKey = toBase64url(publicKey);
        json.publicKeyAlgorithm = algorithm;
        json.attestationObject = toBase64url(attestationObject);
        return json;
      };
    } else {
      const signature = requireBuffer(r.signature, 'signature');
      const userHandle = optionalBuffer(r.userHandle, 'userHandle');
      response = defineOwn(Object.create(protoOf(env.AuthenticatorAssertionResponse)), {
        clientDataJSON: buffers.clientDataJSON,
        authenticatorData: buffers.authenticatorData,
        signature: asArrayBuffer(signature),
        userHandle: asArrayBuffer(userHandle),
      });
      responseJSON = () => {
        const json = {
          clientDataJSON: toBase64url(clientDataJSON),
          authenticatorData: toBase64url(authenticatorData),
          signature: toBase64url(signature),
        };
        if (userHandle !== null) json.userHandle = toBase64url(userHandle);
        return json;
      };
    }

    const id = frame.id;
    return defineOwn(Object.create(protoOf(env.PublicKeyCredential)), {
      id,
      type: 'public-key',
      rawId: buffers.rawId,
      response,
      authenticatorAttachment: attachment,
      // A fresh object each call, so page code mutating one result cannot affect the next.
      getClientExtensionResults() { return decodeValue(extensionTree, 'buffer'); },
      toJSON() {
        const json = { id, rawId: toBase64url(rawId), response: responseJSON() };
        if (attachment !== null) json.authenticatorAttachment = attachment;
        json.clientExtensionResults = decodeValue(extensionTree, 'base64url');
        json.type = 'public-key';
        return json;
      },
    });
  }

  // Names a browser raises from create()/get(); anything else from the host becomes NotAllowedError
  // so a page never sees an exception kind no browser would give it.
  const DOM_ERROR_NAMES = new Set([
    'NotAllowedError', 'InvalidStateError', 'SecurityError', 'NotSupportedError', 'AbortError',
    'ConstraintError', 'UnknownError', 'NotReadableError', 'EncodingError', 'DataError', 'OperationError',
  ]);

  /** A host `error` object → the exception to reject with: a real TypeError or DOMException. */
  function buildError(error, env) {
    const name = isPlainObject(error) && typeof error.name === 'string' ? error.name : 'NotAllowedError';
    const message = isPlainObject(error) && typeof error.message === 'string' ? error.message : '';
    if (name === 'TypeError') return new env.TypeError(message);
    // Browsers report a timeout as NotAllowedError.
    const domName = DOM_ERROR_NAMES.has(name) ? name : 'NotAllowedError';
    return new env.DOMException(message, domName);
  }

  // Capabilities that stay the browser's even with the host up: conditional requests, the platform
  // authenticator and the signal* methods are still served by the browser itself.
  const BROWSER_OWNED = new Set([
    'conditionalGet', 'conditionalMediation', 'conditionalCreate', 'userVerifyingPlatformAuthenticator',
    'signalAllAcceptedCredentials', 'signalCurrentUserDetails', 'signalUnknownCredential',
  ]);

  /**
   * getClientCapabilities(): what a page can rely on with the bridge in place. hostCaps null means the host is
   * unreachable, so requests fall back to the browser and its answer stands. Otherwise only browser-owned
   * keys are kept; everything else (extensions, related origins …) is what the host reports, and what it
   * does not report is false — never the browser's claim for a client that is not serving the request.
   */
  function mergeCapabilities(browserCaps, hostCaps) {
    const out = {};
    const browser = isPlainObject(browserCaps) ? browserCaps : {};
    if (!isPlainObject(hostCaps)) {
      for (const key of Object.keys(browser)) if (typeof browser[key] === 'boolean') out[key] = browser[key];
      return out;
    }
    for (const key of Object.keys(browser)) {
      if (typeof browser[key] === 'boolean') out[key] = BROWSER_OWNED.has(key) ? browser[key] : false;
    }
    for (const key of Object.keys(hostCaps)) {
      if (typeof hostCaps[key] === 'boolean' && !BROWSER_OWNED.has(key)) out[key] = hostCaps[key];
    }
    // Modal requests go to USB keys through the host: no hybrid (phone) transport.
    out.hybridTransport = false;
    out.passkeyPlatformAuthenticator = out.userVerifyingPlatformAuthenticator === true;
    return out;
  }

  /** Validates a relay→page message; returns it or null. */
  function parseRelayMessage(data) {
    if (!isPlainObject(data) || data.channel !== CHANNEL || data.dir !== 'to-page') return null;
    if (typeof data.rid !== 'string' || data.rid.length === 0 || data.rid.length > 64) return null;
    switch (data.kind) {
      case 'result': return isPlainObject(data.credential) ? data : null;
      case 'error': return isPlainObject(data.error) ? data : null;
      case 'fallback': return data;
      case 'capabilities': return data.capabilities === null || isPlainObject(data.capabilities) ? data : null;
      default: return null;
    }
  }

  /** A request id the page picks; unguessable so another script's stray message never matches it. */
  function newRequestId(cryptoObj) {
    const bytes = new Uint8Array(16);
    cryptoObj.getRandomValues(bytes);
    return toBase64url(bytes);
  }

  const codec = Object.freeze({
    CHANNEL, toBase64url, fromBase64url, isBufferSource, bufferSourceBytes, encodeValue, decodeValue,
    buildRequest, buildCredential, buildError, mergeCapabilities, parseRelayMessage, newRequestId, isPlainObject,
  });

  if (typeof module === 'object' && module && module.exports) {
    module.exports = codec;
  } else {
    Object.defineProperty(root, Symbol.for('webauthn-bridge.codec'), { value: codec, configurable: true, enumerable: false });
  }
})(globalThis);
