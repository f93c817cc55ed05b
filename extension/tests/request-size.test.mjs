// background/request-size.js: which requests the native-messaging path cannot carry, and the browser's own serves;
// through router.js (fake native port): such a request is answered `fallback` and never reaches the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import constants from '../common/protocol-constants.js';
import { TOO_LARGE, tooLarge } from '../background/request-size.js';
import { entryFor } from '../background/history.js';
import { settle, setup, topSender, TOP_FACTS } from './fake-bridge.mjs';

const { outboundFrameBytes, defaultInboundFrameBytes, replyAllowanceBytes } = constants.limits;
const ORIGIN = 'https://example.com';
const TOP = 'https://top.example.org';
const challenge = (bytes) => ({ __binary__: Buffer.alloc(bytes, 7).toString('base64url') });

/** The host's refusal (ReplyChannel.refuseUnanswerable) of the clientDataJSON it would write (ClientDataJSON.swift). */
function hostRefuses(type, bytes, caller) {
  const cross = caller.crossOrigin ? `,"crossOrigin":true,"topOrigin":"${caller.topOrigin}"` : ',"crossOrigin":false';
  const clientData = `{"type":"webauthn.${type}","challenge":"${challenge(bytes).__binary__}","origin":"${caller.origin}"${cross}}`;
  return Math.floor((clientData.length * 4 + 2) / 3) + replyAllowanceBytes > outboundFrameBytes;
}

test('every challenge whose answer the host would refuse is the browser\'s own, and a few bytes less still fit', () => {
  for (const caller of [{ origin: ORIGIN, crossOrigin: false }, { origin: ORIGIN, topOrigin: TOP, crossOrigin: true }]) {
    for (const type of ['create', 'get']) {
      // The host's bound, found by bisection: the smallest challenge it refuses.
      let [low, high] = [1, 1 << 20];
      while (low < high) {
        const mid = (low + high) >> 1;
        if (hostRefuses(type, mid, caller)) high = mid; else low = mid + 1;
      }
      const firstRefused = low;
      for (const bytes of [firstRefused, firstRefused + 1, firstRefused + 2, firstRefused + 3]) {
        assert.notEqual(tooLarge({ challenge: challenge(bytes) }, caller), '', `${type} ${bytes} bytes: the host refuses it`);
      }
      assert.equal(tooLarge({ challenge: challenge(firstRefused - 64) }, caller), '', 'within 64 bytes of the host\'s bound');
    }
  }
});

test('ordinary requests fit; a ~700 KB challenge is refused for its answer, a 5 MB one for its frame', () => {
  const caller = { origin: ORIGIN, crossOrigin: false };
  assert.equal(tooLarge({ challenge: challenge(32), user: { id: challenge(64) } }, caller), '');
  assert.equal(tooLarge({ challenge: challenge(500 * 1000) }, caller), '');
  assert.match(tooLarge({ challenge: challenge(700 * 1000) }, caller), /answer .* over the browser's 1048576/);
  assert.match(tooLarge({ challenge: challenge(5 * 1000 * 1000) }, caller), /frame .* over the host's 4194304/);
  // Whatever member makes the frame large (a list of long credential ids the host would refuse anyway).
  const ids = Array.from({ length: 5000 }, () => ({ type: 'public-key', id: challenge(1000) }));
  assert.match(tooLarge({ challenge: challenge(32), allowCredentials: ids }, caller), /frame/);
  assert.equal(JSON.stringify({ challenge: challenge(3 * 1000 * 1000) }).length < defaultInboundFrameBytes, true);
});

test('a malformed challenge is the host\'s to refuse (its TypeError), not a size question', () => {
  const caller = { origin: ORIGIN, crossOrigin: false };
  assert.equal(tooLarge({ challenge: 'not binary' }, caller), '');
  assert.equal(tooLarge(null, caller), '');
});

test('a request too large goes to the browser\'s own, never to the host; the popup lists it', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page({ kind: 'request', rid: 'big', type: 'create', options: { challenge: challenge(700 * 1000) }, frame: TOP_FACTS });
  page({ kind: 'request', rid: 'huge', type: 'get', options: { challenge: challenge(5 * 1000 * 1000) }, frame: TOP_FACTS });
  await settle();
  await settle();
  const byRid = (a, b) => a.rid.localeCompare(b.rid);
  assert.deepEqual(port.sent.sort(byRid), [{ kind: 'fallback', rid: 'big', reason: TOO_LARGE }, { kind: 'fallback', rid: 'huge', reason: TOO_LARGE }]);
  assert.deepEqual(t.native().sent.map((f) => f.type), ['info'], 'nothing but the start-up info reached the host');
  assert.deepEqual(entryFor({ time: 1, type: 'create', origin: ORIGIN, message: port.sent[0] }),
    { time: 1, type: 'create', origin: ORIGIN, topOrigin: '', outcome: 'browser', detail: TOO_LARGE, reason: '' });
  page({ kind: 'request', rid: 'small', type: 'create', options: { challenge: challenge(32) }, frame: TOP_FACTS });
  await settle();
  await settle();
  assert.deepEqual(t.native().sent.map((f) => f.type), ['info', 'create'], 'the next one does');
});

test('the host\'s own inbound limit, as its info says, decides; a malformed one counts as the default', async () => {
  const caller = { origin: ORIGIN, crossOrigin: false };
  const options = { challenge: challenge(20 * 1000) };
  assert.equal(tooLarge(options, caller), '');
  assert.match(tooLarge(options, caller, 16384), /frame .* over the host's 16384/);
  assert.equal(tooLarge(options, caller, -1), '');
  assert.equal(tooLarge(options, caller, '16384'), '');
  const t = setup();
  t.bridge.start();
  t.hostSays({ id: 'bg-info-1', type: 'result', info: { maxInboundFrameBytes: 16384 } });
  const { port, page } = t.frame(topSender());
  page({ kind: 'request', rid: 'p1', type: 'get', options, frame: TOP_FACTS });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'p1', reason: TOO_LARGE }]);
  assert.deepEqual(t.native().sent.map((f) => f.type), ['info']);
});
