/*
 * codec.js — protocol JSON for the page world: request bodies (from page/webidl.js's converted options), host
 * replies into credential records and exceptions, base64url.
 *
 * Runs in two places:
 *   - the page's MAIN world, in the same content-script entry as interceptor.js, after webidl.js. It hands
 *     itself to interceptor.js through a symbol-keyed, non-enumerable property on globalThis that
 *     interceptor.js deletes at once; both run at document_start before any page script, so the page never
 *     sees it.
 *   - node's test runner, through CommonJS `module.exports` (no package.json, so .js is CommonJS there).
 *
 * It is pure: no postMessage, no DOM. Classes it must produce (PublicKeyCredential, DOMException, …) are
 * passed in as `env`, so tests can hand in stand-ins and the page hands in its own realm's classes. The
 * credential objects themselves come from page/credential.js; this file decodes the host reply into the
 * record they are served from.
 * It does not validate WebAuthn semantics (challenge length, rp.id rules …): the host is the WebAuthn
 * client and answers TypeError/SecurityError itself.
 */
(function (root) {
  'use strict';

  const CHANNEL = 'webauthn-bridge/v1';
  /** The member name of a binary value in the protocol's JSON: this world's one spelling of
   *  common/protocol-constants.js's binaryMarker (a classic script cannot import it; protocol-constants.test holds
   *  the two equal). */
  const BINARY_MARKER = '__binary__';
  const MAX_DEPTH = 32; // host replies only
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const LOOKUP = new Map();
  for (let i = 0; i < ALPHABET.length; i++) LOOKUP.set(ALPHABET.charCodeAt(i), i);

  // Captured now: page scripts run later and may replace these globals.
  const toStringTag = Object.prototype.toString;

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

  /** This world's own copy of common/protocol.js's check (that file cannot be loaded in the page's world too). */
  function isPlainObject(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  }

  /** An object built from JSON (a WebIDL dictionary's worth), not an array or ArrayBuffer. */
  function isDictionary(value) {
    return isPlainObject(value) && !isArrayBuffer(value);
  }

  function isBinaryMarker(value) {
    return isPlainObject(value) && typeof value[BINARY_MARKER] === 'string' && Object.keys(value).length === 1;
  }

  /** Bytes → the protocol's JSON for them: the binary marker with their base64url (page/webidl-types.js encode). */
  function binaryValue(bytes) {
    return { [BINARY_MARKER]: toBase64url(bytes) };
  }

  /** Protocol JSON → value with every binary marker turned into a fresh ArrayBuffer ('buffer') or a
   *  base64url string ('base64url', the L3 toJSON form). */
  function decodeValue(value, mode, depth = 0) {
    if (depth > MAX_DEPTH) throw new TypeError('reply nested too deeply');
    if (isBinaryMarker(value)) {
      const bytes = fromBase64url(value[BINARY_MARKER]);
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
   * The protocol request body for navigator.credentials.create/get: the `publicKey` member of options already
   * converted by page/webidl.js, encoded (BufferSources' bytes read now). `signal` and `mediation` stay in the page.
   */
  function buildRequest(type, publicKey, webidl) {
    if (type !== 'create' && type !== 'get') throw new TypeError('unknown request type');
    return { type, options: webidl.encode(publicKey, binaryValue) };
  }

  function requireBuffer(marker, what) {
    if (!isBinaryMarker(marker)) throw new TypeError(`host reply lacks ${what}`);
    return fromBase64url(marker[BINARY_MARKER]).buffer;
  }

  function optionalBuffer(marker, what) {
    return marker === undefined || marker === null ? null : requireBuffer(marker, what);
  }

  /** The bytes of a buffer the page was given; a buffer the page detached reads as empty, never throws. */
  function bufferBase64url(buffer) {
    try {
      return toBase64url(new Uint8Array(buffer));
    } catch (_) {
      return '';
    }
  }

  /**
   * A plain object with its keys in code-unit order, recursively. Browsers build getClientExtensionResults()
   * and toJSON() results from WebIDL dictionaries, whose members come out in lexicographic order
   * (Chromium 156 and Firefox 153 both do: `{"authenticatorAttachment":…,"clientExtensionResults":…,"id":…}`).
   * ArrayBuffers and arrays are leaves and kept as they are.
   */
  function sortedKeys(value) {
    if (!isDictionary(value)) return value;
    const out = {};
    for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
    return out;
  }

  /** A fresh copy of an extension-output tree: new objects and arrays, each leaf through `leaf` (Chromium's
   *  getClientExtensionResults() answers a new object each call around the same prf.results.first, Firefox's a
   *  new buffer too). */
  function copyTree(value, leaf) {
    if (Array.isArray(value)) return value.map((item) => copyTree(item, leaf));
    if (isDictionary(value)) {
      const out = {};
      for (const key of Object.keys(value)) out[key] = copyTree(value[key], leaf);
      return out;
    }
    return leaf(value);
  }

  function jsonLeaf(value) {
    return isArrayBuffer(value) ? bufferBase64url(value) : value;
  }

  function assertionResponse(r) {
    return {
      clientDataJSON: requireBuffer(r.clientDataJSON, 'clientDataJSON'),
      authenticatorData: requireBuffer(r.authenticatorData, 'authenticatorData'),
      signature: requireBuffer(r.signature, 'signature'),
      userHandle: optionalBuffer(r.userHandle, 'userHandle'),
    };
  }

  function attestationResponse(r) {
    if (!Number.isInteger(r.publicKeyAlgorithm)) throw new TypeError('host reply lacks publicKeyAlgorithm');
    return {
      clientDataJSON: requireBuffer(r.clientDataJSON, 'clientDataJSON'),
      attestationObject: requireBuffer(r.attestationObject, 'attestationObject'),
      authenticatorData: requireBuffer(r.authenticatorData, 'authenticatorData'),
      transports: Array.isArray(r.transports) ? r.transports.filter((t) => typeof t === 'string') : [],
      publicKey: optionalBuffer(r.publicKey, 'publicKey'),
      publicKeyAlgorithm: r.publicKeyAlgorithm,
    };
  }

  /** The response part of toJSON(), from the very buffers the page reads (so it says what they say now). */
  function responseJSON(response) {
    const json = {};
    for (const key of Object.keys(response)) {
      const value = response[key];
      // L3: publicKey and userHandle are absent, not null, when there are none.
      if (value !== null) json[key] = isArrayBuffer(value) ? bufferBase64url(value) : value;
    }
    if (Array.isArray(json.transports)) json.transports = json.transports.slice();
    return json;
  }

  /**
   * A host `result.credential` → the credential record page/credential.js serves a page's credential from:
   * every binary value an ArrayBuffer made once (the attributes are [SameObject]), `clientExtensionResults(leaf)`
   * (`leaf` copies a buffer where the browser does) and `toJSON()` answering a fresh object each call. Throws TypeError on a malformed reply, so it fails
   * here rather than in page code.
   */
  function decodeCredential(frame) {
    if (!isPlainObject(frame) || frame.type !== 'public-key' || typeof frame.id !== 'string') {
      throw new TypeError('host reply is not a public-key credential');
    }
    const r = frame.response;
    if (!isPlainObject(r)) throw new TypeError('host reply lacks response');
    const registration = r.attestationObject !== undefined;
    const response = registration ? attestationResponse(r) : assertionResponse(r);
    const rawId = requireBuffer(frame.rawId, 'rawId');
    const authenticatorAttachment = typeof frame.authenticatorAttachment === 'string' ? frame.authenticatorAttachment : null;
    const extensionOutputs = sortedKeys(decodeValue(isPlainObject(frame.clientExtensionResults) ? frame.clientExtensionResults : {}, 'buffer'));
    return Object.freeze({
      registration,
      id: frame.id,
      rawId,
      authenticatorAttachment,
      response: Object.freeze(response),
      clientExtensionResults: (leaf = (value) => value) => copyTree(extensionOutputs, leaf),
      toJSON() {
        const json = {};
        if (authenticatorAttachment !== null) json.authenticatorAttachment = authenticatorAttachment;
        json.clientExtensionResults = copyTree(extensionOutputs, jsonLeaf);
        json.id = frame.id;
        json.rawId = bufferBase64url(rawId);
        json.response = sortedKeys(responseJSON(response));
        json.type = 'public-key';
        return json;
      },
    });
  }

  // page/credential.js: the objects a page is given. The page loads it right after this file and hands it
  // over here; node requires it (end of file).
  let credentialShapes = null;

  function useCredentialShapes(shapes) {
    if (credentialShapes === null) credentialShapes = shapes;
  }

  /** The page-realm builder for env's classes (installed at most once per PublicKeyCredential.prototype). */
  function pageShapes(env) {
    const shapes = credentialShapes && credentialShapes.forWindow(env);
    if (!shapes) throw new TypeError('no page classes to build a credential with');
    return shapes;
  }

  /**
   * A host `result.credential` → a credential the page cannot tell from the browser's own: the browser's
   * prototypes, no own properties, every member served through them (page/credential.js).
   */
  function buildCredential(frame, env) {
    return pageShapes(env).build(decodeCredential(frame));
  }

  // Names a browser raises from create()/get(); anything else from the host becomes NotAllowedError
  // so a page never sees an exception kind no browser would give it. RangeError is one of them as a
  // DOMException's name: Chromium 156 rejects more than 64 allowCredentials/excludeCredentials with a
  // DOMException named "RangeError" (code 0, not instanceof RangeError), checked in the browser. SyntaxError is
  // what WebAuthn L3 (§10.1.4) names a prf.evalByCredential key that is not one of allowCredentials' ids.
  // A null-prototype table, read after page scripts ran: nothing on Set.prototype or Object.prototype is consulted.
  const DOM_ERROR_NAMES = Object.freeze({
    __proto__: null, NotAllowedError: true, InvalidStateError: true, SecurityError: true, NotSupportedError: true,
    AbortError: true, ConstraintError: true, UnknownError: true, NotReadableError: true, EncodingError: true,
    DataError: true, OperationError: true, RangeError: true, SyntaxError: true,
  });

  // Firefox words what its WebAuthn rejects with otherwise than Chromium, whose words the host and the background
  // use (common/chromium-texts.js): a DOMException carries Gecko's default message for its name, a document refused
  // (no focus, permissions policy, activation) "CredentialsContainer request is not allowed.", an opaque origin
  // SecurityError (measured in Firefox ESR 153; CredentialsContainer.cpp). A name not listed keeps its message.
  // Null-prototype tables, as above.
  const FIREFOX_DEFAULT_TEXTS = Object.freeze({
    __proto__: null,
    NotAllowedError: 'The request is not allowed by the user agent or the platform in the current context, possibly because the user denied permission.',
    SecurityError: 'The operation is insecure.',
    NotSupportedError: 'Operation is not supported',
    InvalidStateError: 'An attempt was made to use an object that is not, or is no longer, usable',
    AbortError: 'The operation was aborted. ',
    SyntaxError: 'An invalid or illegal string was specified',
  });
  // Chromium's texts for a document refused (chromium-texts.js focus, activation, policy, opaque; a test holds
  // them) → Firefox's own refusal of that document: [name, message].
  const NOT_ALLOWED_HERE = Object.freeze(['NotAllowedError', 'CredentialsContainer request is not allowed.']);
  const FIREFOX_DOCUMENT_REFUSALS = Object.freeze({
    __proto__: null,
    'The operation is not allowed at this time because the page does not have focus.': NOT_ALLOWED_HERE,
    'A user activation is required to create a credential in a cross-origin iframe.': NOT_ALLOWED_HERE,
    "The 'publickey-credentials-create' feature is not enabled in this document. Permissions Policy may be used to delegate Web Authentication capabilities to cross-origin child frames.": NOT_ALLOWED_HERE,
    "The 'publickey-credentials-get' feature is not enabled in this document. Permissions Policy may be used to delegate Web Authentication capabilities to cross-origin child frames.": NOT_ALLOWED_HERE,
    "The current origin is an opaque origin and hence not allowed to access 'PublicKeyCredential' objects.": Object.freeze(['SecurityError', 'The operation is insecure.']),
  });
  const FIREFOX_TYPE_ERRORS = Object.freeze({ __proto__: null, 'User handle exceeds 64 bytes.': 'user.id is too long' });

  /** What Firefox's own says, [name, message], where the host or the background said `message` (Chromium's
   *  words) under `name`. */
  function firefoxError(name, message) {
    if (name === 'TypeError') return [name, FIREFOX_TYPE_ERRORS[message] ?? message];
    return FIREFOX_DOCUMENT_REFUSALS[message] ?? [name, FIREFOX_DEFAULT_TEXTS[name] ?? message];
  }

  /**
   * A host `error` object → the exception to reject with: a page-realm TypeError or DOMException, worded as
   * `browser` ("chromium" or "firefox") words it.
   */
  function buildError(error, env, browser = 'chromium') {
    const name = isPlainObject(error) && typeof error.name === 'string' ? error.name : 'NotAllowedError';
    const message = isPlainObject(error) && typeof error.message === 'string' ? error.message : '';
    // Browsers report a timeout as NotAllowedError.
    const known = name === 'TypeError' || DOM_ERROR_NAMES[name] === true ? name : 'NotAllowedError';
    const [worded, text] = browser === 'firefox' ? firefoxError(known, message) : [known, message];
    if (worded === 'TypeError') return new env.TypeError(text);
    return new env.DOMException(text, worded);
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
    // Both browsers answer with the keys in code-unit order.
    return sortedKeys(out);
  }

  /** Validates a relay→page message; returns it or null. Its rid is only ever compared with the ids this world
   *  made (newRequestId), so any string will do: one it did not make matches nothing. */
  function parseRelayMessage(data) {
    if (!isPlainObject(data) || data.channel !== CHANNEL || data.dir !== 'to-page') return null;
    if (typeof data.rid !== 'string') return null;
    switch (data.kind) {
      case 'result': return isPlainObject(data.credential) ? data : null;
      case 'error': return isPlainObject(data.error) ? data : null;
      case 'fallback': return data;
      case 'capabilities': return data.capabilities === null || isPlainObject(data.capabilities) ? data : null;
      case 'detached': return data;
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
    CHANNEL, BINARY_MARKER, toBase64url, fromBase64url, binaryValue, decodeValue, buildRequest, decodeCredential, buildCredential, buildError,
    mergeCapabilities, parseRelayMessage,
    newRequestId, isPlainObject, useCredentialShapes, pageShapes,
  });

  if (typeof module === 'object' && module && module.exports) {
    module.exports = codec;
    useCredentialShapes(require('./credential.js'));
  } else {
    Object.defineProperty(root, Symbol.for('webauthn-bridge.codec'), { value: codec, configurable: true, enumerable: false });
  }
})(globalThis);
