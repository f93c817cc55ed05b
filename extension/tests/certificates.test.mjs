// background/certificates.js: a document loaded past a certificate error gets no ceremony, from what the browser
// says (Firefox's security info of each document response, Chromium's certificate errors), never the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as certificates from '../background/certificates.js';

function event() {
  const listeners = [];
  return { listeners, addListener: (fn, filter, extra) => listeners.push({ fn, filter, extra }) };
}
/** A webRequest API whose getSecurityInfo answers from `infos` (requestId → SecurityInfo). */
function fakeWebRequest(infos = {}) {
  return {
    onHeadersReceived: event(), onErrorOccurred: event(),
    getSecurityInfo: async (requestId) => infos[requestId],
  };
}
const sender = (tabId, frameId) => ({ tab: { id: tabId }, frameId });
const OVERRIDDEN = { state: 'secure', overridableErrorCategory: 'trust_error', isUntrusted: true };   // Firefox 153, measured
const VALID = { state: 'secure' };

test('Firefox: a document whose response carried an overridden certificate error is refused with Firefox\'s own error', async () => {
  const webRequest = fakeWebRequest({ 1: OVERRIDDEN, 2: VALID });
  const watch = certificates.createCertificateWatch({ webRequest, firefox: true });
  watch.listen();
  const [{ filter, extra }] = webRequest.onHeadersReceived.listeners;
  assert.deepEqual([filter.types, extra], [['main_frame', 'sub_frame'], ['blocking']], 'getSecurityInfo needs a blocking listener');
  assert.deepEqual(await watch.onHeadersReceived({ requestId: 1, url: 'https://victim.test:8443/login', tabId: 3, frameId: 0 }), {});
  assert.deepEqual(watch.verdict(sender(3, 0), 'https://victim.test:8443'),
    { refuse: { name: 'SecurityError', message: 'The operation is insecure.' } });
  // The origin stays refused: a document of it restored from the back/forward cache makes no new request.
  await watch.onHeadersReceived({ requestId: 2, url: 'https://other.test/', tabId: 3, frameId: 0 });
  assert.deepEqual(watch.verdict(sender(3, 0), 'https://victim.test:8443').refuse.name, 'SecurityError');
  assert.equal(watch.verdict(sender(3, 0), 'https://other.test'), null, 'a valid certificate: served');
});

test('Firefox: a document with no record of its own response goes to Firefox\'s own WebAuthn, which checks it', async () => {
  const watch = certificates.createCertificateWatch({ webRequest: fakeWebRequest({ 1: VALID, 2: { state: 'insecure' } }), firefox: true });
  assert.deepEqual(watch.verdict(sender(3, 0), 'https://example.com'), { fallback: certificates.FALLBACK_UNKNOWN });
  await watch.onHeadersReceived({ requestId: 1, url: 'https://example.com/', tabId: 3, frameId: 0 });
  assert.deepEqual(watch.verdict(sender(3, 5), 'https://example.com'), { fallback: certificates.FALLBACK_UNKNOWN }, 'another frame');
  assert.deepEqual(watch.verdict(sender(3, 0), 'https://evil.example'), { fallback: certificates.FALLBACK_UNKNOWN }, 'another origin');
  await watch.onHeadersReceived({ requestId: 2, url: 'https://sw.example/', tabId: 4, frameId: 0 });
  assert.deepEqual(watch.verdict(sender(4, 0), 'https://sw.example'), { fallback: certificates.FALLBACK_UNKNOWN }, 'no TLS state');
});

test('Chromium: no API tells, so https documents go through Chromium\'s own check unless the proxy cannot be attached', () => {
  let state = 'attached';
  const watch = certificates.createCertificateWatch({ firefox: false, webRequest: fakeWebRequest(), proxyState: () => state });
  assert.equal(watch.listen(), false, 'no listener in Chromium');
  assert.equal(watch.verdict(sender(3, 0), 'https://victim.test'), null, 'the proxy path: Chromium checks before it proxies');
  for (state of ['off', 'detached']) {
    assert.deepEqual(watch.verdict(sender(3, 0), 'https://victim.test'), { fallback: certificates.FALLBACK_UNKNOWN }, state);
    assert.equal(watch.verdict(sender(3, 0), 'http://localhost:8000'), null, `${state}: no certificate at all`);
  }
  for (state of ['taken', 'unsupported']) assert.equal(watch.verdict(sender(3, 0), 'https://victim.test'), null, `${state}: the page path serves`);
});

test('loopback hosts and http pages are exempt, as both browsers exempt them', async () => {
  const watch = certificates.createCertificateWatch({ webRequest: fakeWebRequest({ 1: OVERRIDDEN }), firefox: true });
  await watch.onHeadersReceived({ requestId: 1, url: 'https://localhost:8443/', tabId: 3, frameId: 0 });
  for (const origin of ['https://localhost:8443', 'https://app.localhost', 'https://127.0.0.1:9000', 'https://[::1]:8443', 'http://localhost:8000']) {
    assert.equal(watch.verdict(sender(3, 0), origin), null, origin);
  }
  assert.equal(certificates.isLoopbackHost('localhost.example.com'), false);
});

test('Firefox\'s security info, read as a verdict', () => {
  assert.equal(certificates.certificateState(OVERRIDDEN), 'overridden');
  assert.equal(certificates.certificateState({ state: 'secure', isDomainMismatch: true }), 'overridden');
  assert.equal(certificates.certificateState({ state: 'secure', isNotValidAtThisTime: true }), 'overridden');
  assert.equal(certificates.certificateState({ state: 'secure', overridableErrorCategory: 'unset' }), 'valid');
  assert.equal(certificates.certificateState({ state: 'weak' }), 'valid');
  assert.equal(certificates.certificateState({ state: 'broken' }), 'unknown');
  assert.equal(certificates.certificateState(undefined), 'unknown');
});

test('Firefox without the blocking permission: no listener, and every https document goes to Firefox\'s own', () => {
  const webRequest = fakeWebRequest();
  webRequest.onHeadersReceived.addListener = () => { throw new Error('Using webRequestBlocking requires the webRequestBlocking permission.'); };
  const watch = certificates.createCertificateWatch({ webRequest, firefox: true });
  assert.equal(watch.listen(), false);
  assert.deepEqual(watch.verdict(sender(3, 0), 'https://example.com'), { fallback: certificates.FALLBACK_UNKNOWN });
  assert.equal(watch.verdict(sender(3, 0), 'http://localhost:8000'), null);
});
