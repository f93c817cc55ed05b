/*
 * proxy-codec.js — Chromium's webAuthenticationProxy JSON ⇄ the host protocol. Pure (node tests it).
 *
 * Chromium hands a proxied request over as `requestDetailsJson`: the options in the form of
 * PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON (binary members as base64url
 * strings) plus `extensions.remoteDesktopClientOverride = {origin, sameOriginWithAncestors}`, which Chromium
 * writes itself from the calling frame (a page cannot set it: Chromium refuses to proxy a request that carries
 * it already). The host wants the same options with binary members as {"__binary__": "<base64url>"}.
 * Back, the host's credential (binary members as markers) becomes `responseJson`, the
 * PublicKeyCredential.toJSON() form Chromium parses (RegistrationResponseJSON / AuthenticationResponseJSON).
 */
import { BINARY_MARKER, isPlainObject } from '../common/protocol.js';

export const OVERRIDE = 'remoteDesktopClientOverride';
// Where the parse*FromJSON forms carry bytes ("*" is every element of an array or every member of a map).
const BINARY_PATHS = {
  create: [['challenge'], ['user', 'id'], ['excludeCredentials', '*', 'id'], ['extensions', 'credBlob'],
    ['extensions', 'largeBlob', 'write'], ['extensions', 'prf', 'eval', 'first'], ['extensions', 'prf', 'eval', 'second']],
  get: [['challenge'], ['allowCredentials', '*', 'id'], ['extensions', 'largeBlob', 'write'],
    ['extensions', 'prf', 'eval', 'first'], ['extensions', 'prf', 'eval', 'second'],
    ['extensions', 'prf', 'evalByCredential', '*', 'first'], ['extensions', 'prf', 'evalByCredential', '*', 'second']],
};
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Replaces the base64url string at `path` (and under every "*") with a binary marker, in place. */
function markBinary(node, path) {
  if (node === null || typeof node !== 'object') return;
  const [head, ...rest] = path;
  const keys = head === '*' ? Object.keys(node) : [head];
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
    if (rest.length > 0) {
      markBinary(node[key], rest);
    } else if (typeof node[key] === 'string') {
      if (!BASE64URL.test(node[key])) throw new TypeError(`${path.join('.')} is not base64url`);
      node[key] = { [BINARY_MARKER]: node[key] };
    }
  }
}

/**
 * A proxied request → {origin, sameOriginWithAncestors, options} for the host, or a TypeError. The caller's
 * origin comes from remoteDesktopClientOverride, and only from there: Chromium wrote it.
 */
export function parseRequestDetails(type, requestDetailsJson) {
  if (type !== 'create' && type !== 'get') throw new TypeError('unknown request type');
  const options = JSON.parse(requestDetailsJson);
  if (!isPlainObject(options) || !isPlainObject(options.extensions) || !isPlainObject(options.extensions[OVERRIDE])) {
    throw new TypeError('the proxied request carries no remoteDesktopClientOverride');
  }
  const { origin, sameOriginWithAncestors } = options.extensions[OVERRIDE];
  if (typeof origin !== 'string' || typeof sameOriginWithAncestors !== 'boolean') {
    throw new TypeError('the proxied request has a malformed remoteDesktopClientOverride');
  }
  delete options.extensions[OVERRIDE];
  if (Object.keys(options.extensions).length === 0) delete options.extensions;
  for (const path of BINARY_PATHS[type]) markBinary(options, path);
  if (typeof options.challenge !== 'object') throw new TypeError('the proxied request has no challenge');
  return { origin, sameOriginWithAncestors, options };
}

/** A host value with {"__binary__"} markers → the same with base64url strings (the L3 JSON form). */
function unmark(value, depth = 0) {
  if (depth > 32) throw new TypeError('credential nested too deeply');
  if (isPlainObject(value) && typeof value[BINARY_MARKER] === 'string' && Object.keys(value).length === 1) {
    if (!BASE64URL.test(value[BINARY_MARKER])) throw new TypeError('binary member is not base64url');
    return value[BINARY_MARKER];
  }
  if (Array.isArray(value)) return value.map((v) => unmark(v, depth + 1));
  if (isPlainObject(value)) {
    const out = {};
    for (const key of Object.keys(value)) {
      // L3 toJSON(): userHandle and publicKey are left out, not null, when there are none.
      if (value[key] !== null && value[key] !== undefined) out[key] = unmark(value[key], depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * The host's `credential` → the responseJson string of completeCreateRequest/completeGetRequest. Chromium
 * checks it against the attestation object (algorithm, authenticatorData, publicKey) and builds the page's
 * PublicKeyCredential from it itself.
 */
export function responseJson(type, credential) {
  if (!isPlainObject(credential) || credential.type !== 'public-key' || typeof credential.id !== 'string' ||
      !isPlainObject(credential.response)) {
    throw new TypeError('host reply is not a public-key credential');
  }
  const json = unmark(credential);
  const response = json.response;
  const needed = type === 'create' ? ['clientDataJSON', 'attestationObject', 'authenticatorData'] : ['clientDataJSON', 'authenticatorData', 'signature'];
  for (const key of needed) if (typeof response[key] !== 'string') throw new TypeError(`host reply lacks ${key}`);
  if (type === 'create' && !Array.isArray(response.transports)) response.transports = [];
  if (!isPlainObject(json.clientExtensionResults)) json.clientExtensionResults = {};
  if (typeof json.rawId !== 'string') throw new TypeError('host reply lacks rawId');
  return JSON.stringify(json);
}

/** A host/bridge error → the {name, message} a proxied request is completed with. */
export function errorDetails(error) {
  const name = isPlainObject(error) && typeof error.name === 'string' && error.name ? error.name : 'NotAllowedError';
  const message = isPlainObject(error) && typeof error.message === 'string' ? error.message : '';
  return { name, message };
}

/** The challenge as the page path's request carries it ({"__binary__"}) or the proxy's (a string). */
export function challengeOf(options) {
  const c = isPlainObject(options) ? options.challenge : null;
  if (typeof c === 'string') return c;
  return isPlainObject(c) && typeof c[BINARY_MARKER] === 'string' ? c[BINARY_MARKER] : null;
}
