// background/router.js: trusted origins, fallback decisions, per-site switch, routing between frames and host (who
// may reach the host at all: who-may-call.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as admission from '../background/admission.js';
import * as hostPort from '../background/host-port.js';
import * as inFlight from '../background/in-flight.js';
import * as siteList from '../background/site-list.js';
import chromium from '../common/chromium-texts.js';
import { getRequest, reconnectTimer, settle, setup, topSender, TOP_FACTS } from './fake-bridge.mjs';

const OPAQUE = { name: 'NotAllowedError', message: chromium.opaque };
const NOT_ALLOWED = { name: 'NotAllowedError', message: chromium.notAllowed };

test('origin from a Chromium sender record (sender.origin)', () => {
  assert.deepEqual(admission.originFromSender({ origin: 'https://example.com', url: 'https://example.com/login?x=1', frameId: 0, tab: { id: 1, url: 'https://example.com/login' } }), { origin: 'https://example.com' });
});

test('origin from a Firefox sender record (sender.url only)', () => {
  assert.deepEqual(admission.originFromSender({ url: 'https://example.com:8443/a/b#c', frameId: 0, tab: { id: 1, url: 'https://example.com:8443/a/b' } }), { origin: 'https://example.com:8443' });
  assert.deepEqual(admission.originFromSender({ url: 'http://localhost:4000/', frameId: 0 }), { origin: 'http://localhost:4000' });
});

test('a cross-origin frame gets topOrigin from the tab url; a same-origin frame does not', () => {
  assert.deepEqual(admission.originFromSender({ origin: 'https://idp.example', frameId: 5, tab: { url: 'https://shop.example/checkout' } }), { origin: 'https://idp.example', topOrigin: 'https://shop.example' });
  assert.deepEqual(admission.originFromSender({ url: 'https://idp.example/frame', frameId: 5, tab: { url: 'https://shop.example/' } }), { origin: 'https://idp.example', topOrigin: 'https://shop.example' });
  assert.deepEqual(admission.originFromSender({ origin: 'https://a.example', frameId: 3, tab: { url: 'https://a.example/x' } }), { origin: 'https://a.example' });
});

test('opaque or missing origins are not served', () => {
  assert.equal(admission.originFromSender({ origin: 'null', url: 'about:srcdoc', frameId: 2 }), null);
  // A CSP-sandboxed document (or sandboxed iframe) keeps its URL: the URL's origin is not its origin.
  assert.equal(admission.originFromSender({ origin: 'null', url: 'https://victim.example/upload/1.html', frameId: 0, tab: { id: 1, url: 'https://victim.example/upload/1.html' } }), null);
  assert.equal(admission.originFromSender({ url: 'data:text/html,hi', frameId: 0 }), null);
  assert.equal(admission.originFromSender({}), null);
  assert.equal(admission.originFromSender(null), null);
});

test('host-missing errors of both browsers fall back to the browser; a crash after hearing the host does not', () => {
  assert.deepEqual(hostPort.classifyDisconnect('Specified native messaging host not found.', false), { fallback: true, reason: 'host-missing', detail: 'Specified native messaging host not found.' });
  assert.equal(hostPort.classifyDisconnect('No such native application webauthn_bridge', false).reason, 'host-missing');
  assert.equal(hostPort.classifyDisconnect('Access to the specified native messaging host is forbidden.', false).reason, 'host-forbidden');
  assert.deepEqual(hostPort.classifyDisconnect('Native host has exited.', false), { fallback: true, reason: 'host-failed', detail: 'Native host has exited.' });
  assert.equal(hostPort.classifyDisconnect(undefined, false).fallback, true);
  assert.deepEqual(hostPort.classifyDisconnect('Native host has exited.', true), { fallback: false, reason: 'host-exited', detail: 'Native host has exited.' });
});

test('reconnect backoff doubles from 1 s and stops at 60 s', () => {
  assert.deepEqual([0, 1, 2, 3, 6, 7, 20].map(hostPort.backoffDelay), [1000, 2000, 4000, 8000, 60000, 60000, 60000]);
});

test('per-site switch: host, *.domain and origin lines; comments and blanks ignored', () => {
  const lines = ['# banks', '', 'bank.example', '*.corp.example', 'https://app.example:8443', 'Mixed.Example.'];
  assert.equal(siteList.siteMatches(lines, 'https://bank.example'), true);
  assert.equal(siteList.siteMatches(lines, 'http://bank.example:8080'), true, 'a host line matches any scheme/port');
  assert.equal(siteList.siteMatches(lines, 'https://www.bank.example'), false, 'a host line is not a domain');
  assert.equal(siteList.siteMatches(lines, 'https://corp.example'), true);
  assert.equal(siteList.siteMatches(lines, 'https://a.b.corp.example'), true);
  assert.equal(siteList.siteMatches(lines, 'https://notcorp.example'), false);
  assert.equal(siteList.siteMatches(lines, 'https://app.example:8443'), true);
  assert.equal(siteList.siteMatches(lines, 'https://app.example'), false);
  assert.equal(siteList.siteMatches(lines, 'https://mixed.example'), true);
  assert.equal(siteList.siteMatches([], 'https://bank.example'), false);
  assert.equal(siteList.siteMatches(undefined, 'https://bank.example'), false);
  assert.equal(siteList.parseSitePattern('  # x'), null);
});

test('host ids are unique per tab, frame, page and request', () => {
  const ids = new Set([inFlight.makeHostId(1, 0, 1, 1), inFlight.makeHostId(1, 0, 1, 2), inFlight.makeHostId(1, 3, 1, 3), inFlight.makeHostId(2, 0, 2, 4)]);
  assert.equal(ids.size, 4);
  assert.equal(inFlight.makeHostId(7, 3, 2, 9), 'r9-t7-f3-p2');
});

// ---- the stateful bridge (fake-bridge.mjs) ----

test('start-up opens one native port and asks the host for info', () => {
  const t = setup();
  t.bridge.start();
  t.bridge.start();
  assert.equal(t.natives.length, 1);
  assert.deepEqual(t.native().sent, [{ id: 'bg-info-1', type: 'info' }]);
  const info = {
    version: '1.0', libfido2: '1.12.0', logPath: '/home/u/.local/state/webauthn-bridge/host.log', logLevel: 'info',
    devices: [{ path: 'softfido:soft-1', product: 'SoftToken t.state', kind: 'software token' }],
    capabilities: { 'extension:prf': true },
  };
  t.hostSays({ id: 'bg-info-1', type: 'result', info });
  assert.equal(t.bridge.status().state, 'connected');
  assert.equal(t.indicator.at(-1).state, 'connected');
  // The options page shows these (versions, keys, log path) and copies them into a bug report.
  assert.deepEqual(t.bridge.status().info, info);
});

test('a request carries the trusted origin from the sender, never anything the page sent', async () => {
  const t = setup();
  t.bridge.start();
  const { page } = t.frame(topSender());
  page({ ...getRequest(), origin: 'https://evil.example', topOrigin: 'https://evil.example' });
  await settle();
  const sent = t.native().sent[1];
  assert.deepEqual(sent, { id: 'r1-t1-f0-p1', type: 'get', origin: 'https://example.com', options: { challenge: { __binary__: 'AQID' } } });
});

test('a cross-origin frame request carries topOrigin and crossOrigin', async () => {
  const t = setup();
  t.bridge.start();
  t.trees.set(2, [{ frameId: 0, parentFrameId: -1, url: 'https://shop.example/' }, { frameId: 4, parentFrameId: 0, url: 'https://idp.example/f' }]);
  const { page } = t.frame({ url: 'https://idp.example/f', frameId: 4, tab: { id: 2, url: 'https://shop.example/' } });
  page(getRequest('p1', { ...TOP_FACTS, sameOriginWithAncestors: false }));
  await settle();
  const sent = t.native().sent[1];
  assert.equal(sent.origin, 'https://idp.example');
  assert.equal(sent.topOrigin, 'https://shop.example');
  assert.equal(sent.crossOrigin, true);
  assert.equal(sent.id, 'r1-t2-f4-p1');
});

test('results are routed back to the requesting frame only, under the page rid; status frames never go to a frame', async () => {
  const t = setup();
  t.bridge.start();
  const a = t.frame(topSender(1));
  const b = t.frame(topSender(2));
  a.page(getRequest('A'));
  await settle();
  b.page(getRequest('B'));
  await settle();
  const idA = t.native().sent[1].id;
  assert.equal(t.native().sent.length, 2, 'one ceremony at a time: B waits for the host');
  t.hostSays({ id: idA, type: 'status', status: 'touch', detail: 'Touch it' });
  t.hostSays({ id: idA, type: 'result', credential: { type: 'public-key', id: 'x' } });
  await settle();
  const idB = t.native().sent[2].id;
  assert.notEqual(idA, idB);
  t.hostSays({ id: idB, type: 'status', status: 'select-account', accounts: [{ name: 'a', displayName: 'A', id: { __binary__: 'AQ' } }] });
  assert.deepEqual(a.port.sent, [{ kind: 'result', rid: 'A', credential: { type: 'public-key', id: 'x' } }]);
  assert.deepEqual(b.port.sent, [], 'the chooser goes to the security-key window (prompt-window.test.mjs)');
  t.hostSays({ id: idA, type: 'result', credential: {} }); // a second settle for the same id is dropped
  assert.equal(a.port.sent.length, 1);
  t.hostSays({ id: idB, type: 'error', error: { name: 'NotAllowedError', message: 'cancelled' } });
  assert.deepEqual(b.port.sent.at(-1), { kind: 'error', rid: 'B', error: { name: 'NotAllowedError', message: 'cancelled' } });
  assert.equal(t.bridge.pendingCount(), 0);
});

test('the account choice goes to the host as a select frame from the security-key window only; bad indexes are dropped', async () => {
  const t = setup();
  t.bridge.start();
  const { page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  const id = t.native().sent[1].id;
  page({ kind: 'select', rid: 'A', index: 0 }); // a frame cannot choose
  t.bridge.select(id, 1);
  t.bridge.select(id, -1);
  t.bridge.select(id, 'x');
  t.bridge.select(id, null);
  t.bridge.select('r9-t9-f0-p9', 0);
  assert.deepEqual(t.native().sent.slice(2), [{ id, type: 'select', index: 1 }]);
});

test('the page aborting sends cancel with the host id', async () => {
  const t = setup();
  t.bridge.start();
  const { page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  const id = t.native().sent[1].id;
  page({ kind: 'cancel', rid: 'A' });
  assert.deepEqual(t.native().sent.at(-1), { id, type: 'cancel' });
  assert.equal(t.bridge.pendingCount(), 0);
});

test('a cancel that overtakes its request (site list still loading) stops the request', async () => {
  const t = setup();
  t.bridge.start();
  const { page } = t.frame(topSender());
  page(getRequest('A'));
  page({ kind: 'cancel', rid: 'A' });
  await settle();
  assert.equal(t.native().sent.length, 1, 'only the info frame');
});

test('the frame port disconnecting (navigation, frame removed) cancels its request', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  const id = t.native().sent[1].id;
  port.onDisconnect.fire();
  assert.deepEqual(t.native().sent.at(-1), { id, type: 'cancel' });
});

test('closing the tab cancels its requests and no others', async () => {
  const t = setup();
  t.bridge.start();
  t.frame(topSender(1)).page(getRequest('A'));
  await settle();
  t.frame(topSender(2)).page(getRequest('B'));
  await settle();
  const idA = t.native().sent[1].id;
  t.bridge.tabClosed(1);
  assert.deepEqual(t.native().sent.slice(2), [{ id: idA, type: 'cancel' }]);
  t.hostSays({ id: idA, type: 'error', error: { name: 'NotAllowedError', message: 'cancelled' } });
  await settle();
  assert.equal(t.native().sent.at(-1).id, 'r2-t2-f0-p2', "B goes once the host has answered A's cancel");
  assert.equal(t.bridge.pendingCount(), 1);
});

test('a committed navigation cancels requests of the document it replaced, not of the new one', async () => {
  const t = setup({ now: 1000 });
  t.bridge.start();
  t.frame(topSender(1)).page(getRequest('old'));
  await settle();
  const oldId = t.native().sent[1].id;
  t.bridge.frameNavigated(1, 0, 2000);
  assert.deepEqual(t.native().sent.at(-1), { id: oldId, type: 'cancel' });
  t.clock.now = 3000;
  t.frame(topSender(1)).page(getRequest('new'));
  t.hostSays({ id: oldId, type: 'error', error: { name: 'NotAllowedError', message: 'cancelled' } });
  await settle();
  t.bridge.frameNavigated(1, 0, 2000); // a late event for the old navigation
  assert.equal(t.bridge.pendingCount(), 1);
  t.bridge.frameNavigated(1, 7, 9999); // another frame of the tab navigating
  assert.equal(t.bridge.pendingCount(), 1);
});

test('one pending request per tab: a second one from any frame is NotAllowedError', async () => {
  const t = setup();
  t.bridge.start();
  t.frame(topSender(1)).page(getRequest('A'));
  await settle();
  const sub = t.frame({ origin: 'https://example.com', frameId: 3, tab: { id: 1, url: 'https://example.com/' } });
  sub.page(getRequest('B'));
  await settle();
  assert.deepEqual(sub.port.sent, [{ kind: 'error', rid: 'B', error: { name: 'NotAllowedError', message: chromium.pending } }]);
  assert.equal(t.native().sent.length, 2);
});

test('host not installed: pending requests fall back to the browser, the badge says why, reconnect is scheduled', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  t.hostGone('Specified native messaging host not found.');
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'A', reason: 'host-missing' }]);
  assert.deepEqual(t.indicator.at(-1), { state: 'unavailable', reason: 'host-missing', detail: 'Specified native messaging host not found.' });
  assert.equal(reconnectTimer(t).ms, 1000);
  // The next request tries again right away (the user may have just run install.sh) …
  page(getRequest('B'));
  await settle();
  assert.equal(t.natives.length, 2);
  t.hostGone('No such native application webauthn_bridge');
  assert.deepEqual(port.sent.at(-1), { kind: 'fallback', rid: 'B', reason: 'host-missing' });
  assert.equal(reconnectTimer(t).ms, 2000, '… and the timer backs off');
});

test('a host that crashes after answering fails the pending request instead of silently switching client', async () => {
  const t = setup();
  t.bridge.start();
  t.hostSays({ id: 'bg-info-1', type: 'result', info: {} });
  const { port, page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  t.hostGone('Native host has exited.');
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: 'The webauthn-bridge host stopped unexpectedly.' } }]);
  reconnectTimer(t).fn();
  assert.equal(t.natives.length, 2, 'reopened');
  assert.deepEqual(t.native().sent, [{ id: 'bg-info-2', type: 'info' }]);
});

test('sites on the per-site switch go to the browser without reaching the host', async () => {
  const t = setup({ sites: ['example.com'] });
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'A', reason: 'site-setting' }]);
  assert.equal(t.native().sent.length, 1);
  t.bridge.sitesChanged([]);
  page(getRequest('B'));
  await settle();
  assert.equal(t.native().sent.length, 2);
});

test('an opaque-origin frame is refused with Chromium\'s error, without reaching the host', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame({ origin: 'null', url: 'about:srcdoc', frameId: 0, tab: { id: 1, url: 'https://example.com/' } });
  page(getRequest('A'));
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: OPAQUE }]);
  assert.equal(t.native().sent.length, 1);
});

test('capabilities: host capabilities when connected, null when the host is unavailable', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  t.hostSays({ id: 'bg-info-1', type: 'result', info: { capabilities: { 'extension:prf': true } } });
  page({ kind: 'capabilities', rid: 'c1' });
  t.hostGone('Specified native messaging host not found.');
  page({ kind: 'capabilities', rid: 'c2' });
  // heard before the drop → not a fallback; make the host look missing on reconnect
  reconnectTimer(t).fn();
  t.hostGone('Specified native messaging host not found.');
  page({ kind: 'capabilities', rid: 'c3' });
  assert.deepEqual(port.sent[0], { kind: 'capabilities', rid: 'c1', capabilities: { 'extension:prf': true }, proxyAttached: false });
  assert.equal(port.sent[1].capabilities, null);
  assert.equal(port.sent[2].capabilities, null);
});

test('malformed page messages and unknown host frames are ignored', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page(null);
  page({ kind: 'request', rid: 'A', type: 'delete', options: {} });
  page({ kind: 'request', rid: 5, type: 'get', options: {} });
  page({ kind: 'request', rid: 'A', type: 'get', options: 'x' });
  await settle();
  t.hostSays({ id: 'nobody', type: 'result', credential: {} });
  t.hostSays({ id: null, type: 'error', error: { name: 'TypeError' } });
  t.hostSays('garbage');
  assert.equal(t.native().sent.length, 1);
  assert.equal(port.sent.length, 0);
});

test("watchdog: timeout clamped to [30 s, 10 min] (the host's policy) plus 30 s grace, 5 min by default", () => {
  assert.equal(inFlight.watchdogDelay({ timeout: 1000 }), 60000);
  assert.equal(inFlight.watchdogDelay({ timeout: 60000 }), 90000);
  assert.equal(inFlight.watchdogDelay({ timeout: 1e9 }), 630000);
  assert.equal(inFlight.watchdogDelay({}), 330000);
});

test('a host that never answers: the watchdog cancels and the page gets NotAllowedError', async () => {
  const t = setup();
  t.bridge.start();
  const { port, page } = t.frame(topSender());
  page({ ...getRequest('A'), options: { challenge: { __binary__: 'AQ' }, timeout: 60000 } });
  await settle();
  const id = t.native().sent[1].id;
  const watchdog = t.timers.find((x) => x.ms === 90000);
  assert.ok(watchdog && watchdog.live);
  watchdog.fn();
  assert.deepEqual(t.native().sent.at(-1), { id, type: 'cancel' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: NOT_ALLOWED }]);
});

test('the watchdog is cleared when the host answers', async () => {
  const t = setup();
  t.bridge.start();
  const { page } = t.frame(topSender());
  page(getRequest('A'));
  await settle();
  t.hostSays({ id: t.native().sent[1].id, type: 'result', credential: {} });
  assert.equal(t.timers.find((x) => x.ms === 330000).live, false);
});

test('a host that crashes right after start-up is retried with growing delays; a long-lived one at once', async () => {
  const t = setup({ now: 0 });
  t.bridge.start();
  t.hostSays({ id: 'bg-info-1', type: 'result', info: {} });
  t.hostGone('Native host has exited.');
  assert.equal(reconnectTimer(t).ms, 1000);
  reconnectTimer(t).fn();
  t.hostSays({ id: 'bg-info-2', type: 'result', info: {} });
  t.hostGone('Native host has exited.');
  assert.equal(reconnectTimer(t).ms, 2000);
  reconnectTimer(t).fn();
  t.clock.now = 120000;
  t.hostGone('Native host has exited.');
  assert.equal(reconnectTimer(t).ms, 1000);
});
