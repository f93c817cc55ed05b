// Who may reach the host, decided in the background (admission.js, frame-rules.js, intake.js, host-queue.js through
// the bridge of fake-bridge.mjs): opaque and sandboxed documents, permissions policy, the frame tree, the focus rule,
// certificate errors, and frames a page must never send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as admission from '../background/admission.js';
import chromium from '../common/chromium-texts.js';
import { REFUSALS } from '../common/relay-shared.js';
import { createRequest, getRequest, settle, setup, topSender, TOP_FACTS } from './fake-bridge.mjs';

const OPAQUE = { name: 'NotAllowedError', message: chromium.opaque };
const FOCUS = { name: 'NotAllowedError', message: chromium.focus };
const NOT_ALLOWED = { name: 'NotAllowedError', message: chromium.notAllowed };

const victim = (extra = {}) => ({ id: 'ext', url: 'https://victim.example/upload/1.html', frameId: 0, tab: { id: 1, url: 'https://victim.example/upload/1.html' }, ...extra });
const hostRequests = (t) => t.native().sent.filter((f) => f.type === 'get' || f.type === 'create');

test('a CSP-sandboxed document is refused with Chromium\'s error whatever its URL says, in both browsers', async () => {
  const t = setup();
  t.bridge.start();
  const chromium = t.frame(victim({ origin: 'null' }));
  chromium.page(getRequest('A'));
  // Firefox before sender.origin: only the relay's isolated world can tell that the origin is opaque.
  const firefox = t.frame(victim());
  firefox.page(getRequest('B', { ...TOP_FACTS, opaque: true, policy: null }));
  // A relay that says nothing is not believed either.
  const silent = t.frame(victim({ tab: { id: 3, url: 'https://victim.example/' } }));
  silent.page({ ...getRequest('C'), frame: undefined });
  await settle();
  assert.deepEqual(chromium.port.sent, [{ kind: 'error', rid: 'A', error: OPAQUE }]);
  assert.deepEqual(firefox.port.sent, [{ kind: 'error', rid: 'B', error: OPAQUE }]);
  assert.equal(silent.port.sent[0].error.name, 'NotAllowedError');
  assert.deepEqual(hostRequests(t), []);
});

test('a frame whose permissions policy forbids the feature is refused in the background too', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(1, [{ frameId: 0, parentFrameId: -1, url: 'https://shop.example/' }, { frameId: 4, parentFrameId: 0, url: 'https://evil.example/f' }]);
  const { port, page } = t.frame({ origin: 'https://evil.example', url: 'https://evil.example/f', frameId: 4, tab: { id: 1, url: 'https://shop.example/' } });
  page(getRequest('A', { ...TOP_FACTS, sameOriginWithAncestors: false, policy: { get: false, create: false } }));
  page(createRequest('B', { ...TOP_FACTS, sameOriginWithAncestors: false, policy: { get: true, create: true }, activation: false }));
  await settle();
  assert.deepEqual(port.sent, [
    { kind: 'error', rid: 'A', error: REFUSALS.policy('get') },
    { kind: 'error', rid: 'B', error: { name: 'NotAllowedError', message: 'A user activation is required to create a credential in a cross-origin iframe.' } },
  ]);
  assert.equal(REFUSALS.policy('get').message, "The 'publickey-credentials-get' feature is not enabled in this document. Permissions Policy may be used to delegate Web Authentication capabilities to cross-origin child frames.");
  assert.deepEqual(hostRequests(t), []);
});

test('the frame tree overrules a relay that calls a cross-origin frame same-origin; Firefox\'s frames go to Firefox', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(1, [{ frameId: 0, parentFrameId: -1, url: 'https://shop.example/' }, { frameId: 4, parentFrameId: 0, url: 'https://evil.example/f' }]);
  const { port, page } = t.frame({ origin: 'https://evil.example', url: 'https://evil.example/f', frameId: 4, tab: { id: 1, url: 'https://shop.example/' } });
  page(getRequest('A', { ...TOP_FACTS, policy: null })); // claims same-origin, no policy API (Firefox)
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'A', reason: 'cross-origin-frame' }]);
  assert.deepEqual(hostRequests(t), []);
});

test('A→B→A: the inner frame is cross-origin with topOrigin A (WebAuthn L3: all ancestors, not only the top)', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(1, [
    { frameId: 0, parentFrameId: -1, url: 'https://a.example/' },
    { frameId: 5, parentFrameId: 0, url: 'https://b.example/embed' },
    { frameId: 6, parentFrameId: 5, url: 'https://a.example/login' },
  ]);
  const { page } = t.frame({ origin: 'https://a.example', url: 'https://a.example/login', frameId: 6, tab: { id: 1, url: 'https://a.example/' } });
  page(getRequest('A', { ...TOP_FACTS, sameOriginWithAncestors: true })); // even if the relay got it wrong
  await settle();
  const [sent] = hostRequests(t);
  assert.equal(sent.origin, 'https://a.example');
  assert.equal(sent.topOrigin, 'https://a.example');
  assert.equal(sent.crossOrigin, true);
});

test('a frame under an opaque top-level document is refused rather than given its own origin as topOrigin', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(1, [{ frameId: 0, parentFrameId: -1, url: 'https://victim.example/upload/1.html' }, { frameId: 2, parentFrameId: 0, url: 'https://victim.example/login' }]);
  const { port, page } = t.frame({ origin: 'https://victim.example', url: 'https://victim.example/login', frameId: 2, tab: { id: 1, url: 'https://victim.example/upload/1.html' } });
  page(getRequest('A', { ...TOP_FACTS, sameOriginWithAncestors: false, topOpaque: true }));
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: OPAQUE }]);
});

test('create from a tab without focus is refused as Chromium does; nothing reaches the host', async () => {
  const t = setup();
  t.bridge.start();
  t.unfocused.add(1);
  const { port, page } = t.frame(topSender(1));
  page(createRequest('A'));
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: FOCUS }]);
  assert.deepEqual(hostRequests(t), []);
});

test('get from a background tab waits, with nothing sent to the host, until its tab is focused', async () => {
  const t = setup();
  t.bridge.start();
  t.unfocused.add(1);
  const { port, page } = t.frame(topSender(1));
  page(getRequest('A'));
  await settle();
  t.bridge.focusChanged(); // another tab activated: still not this one
  await settle();
  assert.deepEqual(hostRequests(t), []);
  assert.deepEqual(port.sent, []);
  assert.equal(t.bridge.waitingCount(), 1);
  t.unfocused.delete(1);
  t.bridge.focusChanged();
  await settle();
  assert.equal(hostRequests(t).length, 1);
  assert.equal(t.bridge.waitingCount(), 0);
});

test('a background tab looping get() never reaches the host, and never blocks the focused tab', async () => {
  const t = setup();
  t.bridge.start();
  t.unfocused.add(2);
  const background = t.frame(topSender(2));
  for (let i = 0; i < 5; i++) {
    background.page(getRequest(`L${i}`));
    await settle();
    background.page({ kind: 'cancel', rid: `L${i}` }); // the loop aborts and asks again
  }
  background.page(getRequest('L5'));
  const focused = t.frame(topSender(1));
  focused.page(getRequest('F'));
  await settle();
  const sent = hostRequests(t);
  assert.equal(sent.length, 1);
  assert.match(sent[0].id, /-t1-/);
});

test('a request of a tab that lost focus is cancelled and held again when the focused tab asks', async () => {
  const t = setup();
  t.bridge.start();
  const first = t.frame(topSender(2));
  first.page(getRequest('A'));
  await settle();
  const idA = hostRequests(t)[0].id;
  t.unfocused.add(2);   // the user went to tab 1, where the site asks too
  const second = t.frame(topSender(1));
  second.page(getRequest('B'));
  await settle();
  assert.deepEqual(t.native().sent.at(-1), { id: idA, type: 'cancel' });
  assert.equal(hostRequests(t).length, 1, 'B waits until the host has let go of A');
  t.hostSays({ id: idA, type: 'error', error: { name: 'NotAllowedError', message: 'cancelled' } });
  await settle();
  assert.match(hostRequests(t)[1].id, /-t1-/);
  assert.deepEqual(first.port.sent, [], 'A is not failed: it waits for its tab');
  t.hostSays({ id: hostRequests(t)[1].id, type: 'result', credential: { id: 'b' } });
  t.unfocused.delete(2);
  t.bridge.focusChanged();
  await settle();
  const again = hostRequests(t)[2];
  assert.match(again.id, /-t2-/);
  assert.notEqual(again.id, idA, 'sent anew, under a new host id');
});

test('a request held past its timeout fails as Chromium\'s would; the page aborting or the tab closing drops it', async () => {
  const t = setup();
  t.bridge.start();
  t.unfocused.add(1).add(2).add(3);
  const a = t.frame(topSender(1));
  a.page({ ...getRequest('A'), options: { challenge: { __binary__: 'AQ' }, timeout: 40000 } });
  await settle();
  t.timers.find((x) => x.ms === 40000 && x.live).fn();
  assert.deepEqual(a.port.sent, [{ kind: 'error', rid: 'A', error: NOT_ALLOWED }]);
  const b = t.frame(topSender(2));
  b.page(getRequest('B'));
  const c = t.frame(topSender(3));
  c.page(getRequest('C'));
  await settle();
  b.page({ kind: 'cancel', rid: 'B' });
  t.bridge.tabClosed(3);
  assert.equal(t.bridge.waitingCount(), 0);
  t.unfocused.clear();
  t.bridge.focusChanged();
  await settle();
  assert.deepEqual(hostRequests(t), []);
});

test('a cancel the host never answers frees the host after a grace period', async () => {
  const t = setup();
  t.bridge.start();
  const a = t.frame(topSender(1));
  a.page(getRequest('A'));
  await settle();
  a.page({ kind: 'cancel', rid: 'A' });
  const b = t.frame(topSender(2));
  b.page(getRequest('B'));
  await settle();
  assert.equal(hostRequests(t).length, 1);
  t.timers.find((x) => x.ms === 10000 && x.live).fn();
  await settle();
  assert.equal(hostRequests(t).length, 2);
});

test('a document the browser loaded past a certificate error is refused before the queue; an unknown one goes to the browser', async () => {
  const seen = [];
  const certificates = {
    verdict: (sender, origin) => {
      seen.push([sender.frameId, origin]);
      if (origin === 'https://victim.example') return { refuse: { name: 'SecurityError', message: 'The operation is insecure.' } };
      return origin === 'https://new.example' ? { fallback: 'certificate-unknown' } : null;
    },
  };
  const t = setup({ certificates });
  t.bridge.start();
  const refused = t.frame(victim({ origin: 'https://victim.example' }));
  refused.page(createRequest('A'));
  const unknown = t.frame(victim({ origin: 'https://new.example', url: 'https://new.example/', tab: { id: 2, url: 'https://new.example/' } }));
  unknown.page(getRequest('B'));
  await settle();
  assert.deepEqual(refused.port.sent, [{ kind: 'error', rid: 'A', error: { name: 'SecurityError', message: 'The operation is insecure.' } }]);
  assert.deepEqual(unknown.port.sent, [{ kind: 'fallback', rid: 'B', reason: 'certificate-unknown' }]);
  assert.deepEqual(seen, [[0, 'https://victim.example'], [0, 'https://new.example']], 'asked with the sender record\'s origin');
  assert.deepEqual(hostRequests(t), []);
});

test('Firefox: a same-origin frame whose embedder names WebAuthn in allow= goes to Firefox in the background too', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(1, [{ frameId: 0, parentFrameId: -1, url: 'https://victim.example/' }, { frameId: 4, parentFrameId: 0, url: 'https://victim.example/widget' }]);
  const { port, page } = t.frame(victim({ origin: 'https://victim.example', url: 'https://victim.example/widget', frameId: 4 }));
  page(getRequest('A', { ...TOP_FACTS, policy: null, embedderAllow: true }));
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'A', reason: 'embedder-policy' }]);
  assert.deepEqual(hostRequests(t), []);
});

test('key-management frames from a frame port never reach the host, whatever fields they carry', async () => {
  // What a content script would pass on if a page got past the relay: the background builds every host frame from
  // its own records and sends only create/get (and cancel) for a frame port; the host serves key management only on
  // the Security keys page's own connection (opened with `manage`), never this one.
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  for (const type of ['manage', 'key-info', 'passkeys', 'passkey-delete', 'passkey-rename']) {
    page({ kind: type, rid: `k-${type}`, device: '/dev/hidraw0', credentialId: 'AAEC' });
    page({ kind: 'request', rid: `r-${type}`, type, options: { challenge: { __binary__: 'AQID' } }, frame: TOP_FACTS,
      device: '/dev/hidraw0', credentialId: 'AAEC' });
  }
  await settle();
  assert.deepEqual(t.native().sent, [{ id: 'bg-info-1', type: 'info' }]);
  assert.deepEqual(port.sent, []);
});
