// Encoding helpers of page/codec.js: base64url both ways, request building, host replies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');
const webidl = require('../page/webidl.js');

const bytes = (...b) => new Uint8Array(b);

test('base64url of the RFC 4648 vectors, without padding, both ways', () => {
  const vectors = [['', ''], ['f', 'Zg'], ['fo', 'Zm8'], ['foo', 'Zm9v'], ['foob', 'Zm9vYg'], ['fooba', 'Zm9vYmE'], ['foobar', 'Zm9vYmFy']];
  for (const [plain, encoded] of vectors) {
    const raw = new TextEncoder().encode(plain);
    assert.equal(codec.toBase64url(raw), encoded);
    assert.deepEqual(codec.fromBase64url(encoded), raw);
  }
});

test('base64url uses the url alphabet (- and _), never + / or =', () => {
  assert.equal(codec.toBase64url(bytes(0xfb, 0xff, 0xbf)), '-_-_');
  assert.deepEqual(codec.fromBase64url('-_-_'), bytes(0xfb, 0xff, 0xbf));
});

test('base64url decoding rejects padding, the standard alphabet, bad lengths and non-canonical tails', () => {
  for (const bad of ['Zg==', '+/+/', 'Z', 'Zh', 'Zm9 v', 12]) {
    assert.throws(() => codec.fromBase64url(bad), TypeError, String(bad));
  }
});

test('base64url round-trips every byte value', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(codec.fromBase64url(codec.toBase64url(all)), all);
  assert.equal(codec.toBase64url(all), Buffer.from(all).toString('base64url'));
});

test('decodeValue turns markers into fresh ArrayBuffers or base64url strings, deep', () => {
  const tree = { prf: { results: { first: { __binary__: 'AQID' } } }, list: [{ __binary__: '' }], n: 1 };
  const asBuffers = codec.decodeValue(tree, 'buffer');
  assert.ok(asBuffers.prf.results.first instanceof ArrayBuffer);
  assert.deepEqual(new Uint8Array(asBuffers.prf.results.first), bytes(1, 2, 3));
  assert.equal(asBuffers.list[0].byteLength, 0);
  assert.deepEqual(codec.decodeValue(tree, 'base64url'), { prf: { results: { first: 'AQID' } }, list: [''], n: 1 });
});

test('buildRequest sends the converted publicKey with every BufferSource as __binary__', () => {
  const options = { publicKey: { challenge: bytes(9).buffer, rpId: 'example.com', allowCredentials: [{ type: 'public-key', id: bytes(1, 2) }] } };
  const request = codec.buildRequest('get', webidl.convertOptions('get', options, 'chromium').publicKey, webidl);
  assert.deepEqual(request, {
    type: 'get',
    options: { allowCredentials: [{ id: { __binary__: 'AQI' }, type: 'public-key' }], challenge: { __binary__: 'CQ' }, rpId: 'example.com' },
  });
  assert.throws(() => codec.buildRequest('delete', {}, webidl), TypeError);
});

test('page and relay messages are shape-checked', () => {
  const C = codec.CHANNEL;
  assert.ok(codec.parseRelayMessage({ channel: C, dir: 'to-page', kind: 'result', rid: 'a', credential: {} }));
  assert.equal(codec.parseRelayMessage({ channel: C, dir: 'to-page', kind: 'result', rid: 'a' }), null);
  assert.equal(codec.parseRelayMessage({ channel: 'other', dir: 'to-page', kind: 'fallback', rid: 'a' }), null);
  assert.equal(codec.parseRelayMessage({ channel: C, dir: 'to-relay', kind: 'fallback', rid: 'a' }), null);
  assert.equal(codec.parseRelayMessage({ channel: C, dir: 'to-page', kind: 'status', rid: 'a' }), null);
  // Any string: the page compares it only with the ids it made itself.
  assert.ok(codec.parseRelayMessage({ channel: C, dir: 'to-page', kind: 'fallback', rid: 'x'.repeat(5000) }));
  assert.equal(codec.parseRelayMessage({ channel: C, dir: 'to-page', kind: 'fallback', rid: 7 }), null);
  assert.equal(codec.parseRelayMessage('string'), null);
});

test('capabilities: the browser answer stands when the host is unreachable', () => {
  const browser = { conditionalGet: true, hybridTransport: true, userVerifyingPlatformAuthenticator: false, 'extension:prf': false, bogus: 'x' };
  assert.deepEqual(codec.mergeCapabilities(browser, null), { conditionalGet: true, hybridTransport: true, userVerifyingPlatformAuthenticator: false, 'extension:prf': false });
  assert.deepEqual(codec.mergeCapabilities(undefined, null), {});
});

test('capabilities with the host up: browser-owned keys kept, the rest is the host\'s answer or false', () => {
  const browser = {
    conditionalGet: true, conditionalCreate: true, hybridTransport: true, userVerifyingPlatformAuthenticator: true,
    signalUnknownCredential: true, relatedOrigins: true, 'extension:largeBlob': true, 'extension:prf': false,
  };
  const merged = codec.mergeCapabilities(browser, { 'extension:prf': true, conditionalGet: false, 'extension:credProps': true, n: 3 });
  assert.deepEqual(merged, {
    conditionalGet: true, conditionalCreate: true, userVerifyingPlatformAuthenticator: true, signalUnknownCredential: true,
    relatedOrigins: false, 'extension:largeBlob': false, 'extension:prf': true, 'extension:credProps': true,
    hybridTransport: false, passkeyPlatformAuthenticator: true,
  });
});
