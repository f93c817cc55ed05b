// common/protocol.js against docs/protocol-constants.json, the one list of names and numbers the extension shares
// with the host (the host's ProtocolConstantsTests read the same file): drift on either side fails a test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as protocol from '../common/protocol.js';
import * as prompt from '../prompt/view.js';

// page/codec.js is a classic script (the page's world cannot load modules): CommonJS to node.
const codec = createRequire(import.meta.url)('../page/codec.js');
const shared = JSON.parse(readFileSync(new URL('../../docs/protocol-constants.json', import.meta.url), 'utf8'));

const sorted = (values) => [...values].sort();

test('the protocol version is the shared one', () => {
  assert.equal(protocol.VERSION, shared.protocolVersion);
});

test('frame types are the shared ones', () => {
  assert.deepEqual(sorted(Object.values(protocol.REQUEST)), sorted(shared.requestTypes));
  assert.deepEqual(sorted(Object.values(protocol.REPLY)), sorted(shared.replyTypes));
});

test('status codes are the shared ones', () => {
  assert.deepEqual(sorted(Object.values(protocol.STATUS)), sorted(shared.statuses));
});

test('status frame members are the shared ones', () => {
  assert.deepEqual(sorted(Object.values(protocol.STATUS_FIELDS)), sorted(shared.statusFields));
});

test('error names are the shared ones', () => {
  assert.deepEqual(sorted(Object.values(protocol.ERROR)), sorted(shared.errorNames));
});

test('binary marker, limits and the timeout policy are the shared ones', () => {
  assert.equal(protocol.BINARY_MARKER, shared.binaryMarker);
  assert.deepEqual({ ...protocol.LIMITS }, shared.limits);
  assert.deepEqual({ ...protocol.TIMEOUTS }, shared.timeouts);
});

test('the timeout a request runs under: absent → default, otherwise clamped to the shared bounds', () => {
  const { defaultMilliseconds, minimumMilliseconds, maximumMilliseconds } = shared.timeouts;
  assert.equal(protocol.effectiveTimeout({}), defaultMilliseconds);
  assert.equal(protocol.effectiveTimeout(undefined), defaultMilliseconds);
  assert.equal(protocol.effectiveTimeout({ timeout: 1 }), minimumMilliseconds);
  assert.equal(protocol.effectiveTimeout({ timeout: 60000 }), 60000);
  assert.equal(protocol.effectiveTimeout({ timeout: 1e12 }), maximumMilliseconds);
});

test('a request id is what the host echoes: a non-empty string of at most requestIdBytes UTF-8 bytes', () => {
  const limit = shared.limits.requestIdBytes;
  assert.ok(protocol.isRequestId('r1-t2-f0-p3'));
  assert.ok(protocol.isRequestId('x'.repeat(limit)));
  assert.ok(protocol.isRequestId('€'.repeat(Math.floor(limit / 3)))); // 3 bytes each
  assert.equal(protocol.isRequestId('x'.repeat(limit + 1)), false);
  assert.equal(protocol.isRequestId('€'.repeat(Math.floor(limit / 3) + 1)), false);
  for (const wrong of ['', 7, null, undefined, {}, ['a']]) assert.equal(protocol.isRequestId(wrong), false);
});

test('every status the host sends has a sentence of its own in the security-key window', () => {
  const fallback = prompt.statusText('an unknown status');
  for (const status of shared.statuses) {
    if (status !== protocol.STATUS.processing) assert.notEqual(prompt.statusText(status), fallback, status);
  }
});

test('every error name the host sends reaches the page under that name', () => {
  class StandInDOMException { constructor(message, name) { this.message = message; this.name = name; } }
  const env = { DOMException: StandInDOMException, TypeError };
  for (const name of shared.errorNames) {
    assert.equal(codec.buildError({ name, message: 'm' }, env).name, name);
  }
});
