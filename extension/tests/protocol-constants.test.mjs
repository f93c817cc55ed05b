// common/protocol-constants.js, the one list of names and numbers the extension shares with the host (the
// host's ProtocolConstantsTests hold its typed copies to the same file). common/protocol.js reads it; these tests
// hold to it what cannot import it (the classic scripts' copies) and what is written for each of its entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as protocol from '../common/protocol.js';
import shared from '../common/protocol-constants.js';
import { REQUEST_ID_BYTES } from '../common/relay-shared.js';
import * as prompt from '../prompt/view.js';

// page/ files are classic scripts (the page's world cannot load modules): CommonJS to node.
const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');
const webidl = require('../page/webidl.js');

test('the relay\'s classic message checks use the shared longest request id', () => {
  assert.equal(REQUEST_ID_BYTES, shared.limits.requestIdBytes);
});

test('the page world\'s codec writes and reads binary values under the shared marker', () => {
  assert.equal(codec.BINARY_MARKER, shared.binaryMarker);
  assert.deepEqual(webidl.encode(new Uint8Array([1]), codec.binaryValue), { [shared.binaryMarker]: 'AQ' });
  assert.equal(codec.decodeValue({ [shared.binaryMarker]: 'AQ' }, 'base64url'), 'AQ');
});

test('the page world refuses nothing Blink refuses after the credential list cap the host applies', () => {
  assert.equal(webidl.CREDENTIAL_LIST_ENTRIES, shared.limits.credentialListEntries);
});

test('the binary marker is spelled once for the modules and once for the page world, nowhere else', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const spelled = {};
  for (const file of readdirSync(root, { recursive: true })) {
    if (!file.endsWith('.js') || file.startsWith('tests')) continue;
    const code = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const count = code.split(shared.binaryMarker).length - 1;
    if (count) spelled[file] = count;
  }
  assert.deepEqual(spelled, { 'common/protocol-constants.js': 1, 'page/codec.js': 1 });
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
