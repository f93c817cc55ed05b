// Encoding helpers of page/codec.js: BufferSource → __binary__, base64url both ways, request building.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');

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

test('an ArrayBuffer becomes {__binary__}', () => {
  assert.deepEqual(codec.encodeValue(bytes(1, 2, 3).buffer), { __binary__: 'AQID' });
  assert.deepEqual(codec.encodeValue(new ArrayBuffer(0)), { __binary__: '' });
});

test('a Uint8Array view with an offset encodes only its window, not the whole buffer', () => {
  const whole = bytes(9, 9, 1, 2, 3, 9);
  const view = whole.subarray(2, 5);
  assert.equal(view.byteOffset, 2);
  assert.deepEqual(codec.encodeValue(view), { __binary__: 'AQID' });
});

test('a DataView encodes its byteOffset/byteLength window', () => {
  const whole = bytes(7, 0xde, 0xad, 0xbe, 0xef, 7);
  assert.deepEqual(codec.encodeValue(new DataView(whole.buffer, 1, 4)), { __binary__: '3q2-7w' });
});

test('every TypedArray kind is a BufferSource, encoded as its raw bytes', () => {
  const buf = bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17).buffer;
  const kinds = [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array,
    Float64Array, BigInt64Array, BigUint64Array];
  for (const Kind of kinds) {
    const view = new Kind(buf, 8, 1); // one element at offset 8
    const expected = Buffer.from(buf, 8, Kind.BYTES_PER_ELEMENT).toString('base64url');
    assert.deepEqual(codec.encodeValue(view), { __binary__: expected }, Kind.name);
  }
  const int16 = new Int16Array([1, -2]);
  assert.deepEqual(codec.encodeValue(int16), { __binary__: Buffer.from(int16.buffer).toString('base64url') });
});

test('bytes are copied at call time: later writes to the caller buffer do not change the request', () => {
  const challenge = bytes(1, 2, 3);
  const encoded = codec.encodeValue({ challenge });
  challenge[0] = 0xff;
  assert.deepEqual(encoded, { challenge: { __binary__: 'AQID' } });
});

test('nested options keep structure; undefined and functions drop out as in JSON', () => {
  const encoded = codec.encodeValue({
    a: 1, b: 'x', c: true, d: null, e: undefined, f: () => 1, g: [bytes(1), undefined, 2], h: { i: new ArrayBuffer(1) }, n: NaN,
  });
  assert.deepEqual(encoded, { a: 1, b: 'x', c: true, d: null, g: [{ __binary__: 'AQ' }, null, 2], h: { i: { __binary__: 'AA' } }, n: null });
});

test('cyclic options are refused with a TypeError', () => {
  const cyclic = { a: {} };
  cyclic.a.back = cyclic;
  assert.throws(() => codec.encodeValue(cyclic), TypeError);
});

test('decodeValue turns markers into fresh ArrayBuffers or base64url strings, deep', () => {
  const tree = { prf: { results: { first: { __binary__: 'AQID' } } }, list: [{ __binary__: '' }], n: 1 };
  const asBuffers = codec.decodeValue(tree, 'buffer');
  assert.ok(asBuffers.prf.results.first instanceof ArrayBuffer);
  assert.deepEqual(new Uint8Array(asBuffers.prf.results.first), bytes(1, 2, 3));
  assert.equal(asBuffers.list[0].byteLength, 0);
  assert.deepEqual(codec.decodeValue(tree, 'base64url'), { prf: { results: { first: 'AQID' } }, list: [''], n: 1 });
});

test('buildRequest(create) sends only publicKey, with every BufferSource as __binary__', () => {
  const userId = bytes(0, 0, 42, 43).subarray(2);
  const request = codec.buildRequest('create', {
    signal: new AbortController().signal,
    publicKey: {
      rp: { id: 'example.com', name: 'Example' },
      user: { id: userId, name: 'alice', displayName: 'Alice' },
      challenge: bytes(1, 2, 3, 4),
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
      excludeCredentials: [{ type: 'public-key', id: new DataView(bytes(5, 6).buffer), transports: ['usb'] }],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      timeout: 60000,
      extensions: { credProps: true, prf: { eval: { first: new Int16Array([1]) } } },
    },
  });
  assert.deepEqual(request, {
    type: 'create',
    options: {
      rp: { id: 'example.com', name: 'Example' },
      user: { id: { __binary__: 'Kis' }, name: 'alice', displayName: 'Alice' },
      challenge: { __binary__: 'AQIDBA' },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
      excludeCredentials: [{ type: 'public-key', id: { __binary__: 'BQY' }, transports: ['usb'] }],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      timeout: 60000,
      extensions: { credProps: true, prf: { eval: { first: { __binary__: 'AQA' } } } },
    },
  });
});

test('buildRequest(get) encodes allowCredentials ids and the challenge', () => {
  const request = codec.buildRequest('get', {
    mediation: 'optional',
    publicKey: { challenge: bytes(9).buffer, rpId: 'example.com', allowCredentials: [{ type: 'public-key', id: bytes(1, 2) }], userVerification: 'required' },
  });
  assert.deepEqual(request, {
    type: 'get',
    options: { challenge: { __binary__: 'CQ' }, rpId: 'example.com', allowCredentials: [{ type: 'public-key', id: { __binary__: 'AQI' } }], userVerification: 'required' },
  });
});

test('buildRequest refuses a publicKey that is not a dictionary', () => {
  assert.throws(() => codec.buildRequest('get', { publicKey: 5 }), TypeError);
  assert.throws(() => codec.buildRequest('get', { publicKey: new ArrayBuffer(1) }), TypeError);
  assert.throws(() => codec.buildRequest('delete', { publicKey: {} }), TypeError);
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
