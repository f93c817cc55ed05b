// background/try-again.js through the real bridge and security-key window (prompt-bridge.mjs): a failure the host
// marks `retry` waits in the window with "Try again" while the page's promise stays pending, as Chromium's dialog
// (its error sheets that StartOver); Try again sends the same request again; Close, the timeout or the page's abort
// end it. The page only ever gets its one final answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TIMED_OUT } from '../background/try-again.js';
import { CHROMIUM_NOT_ALLOWED, settle, setup, started } from './prompt-bridge.mjs';

const NO_CREDENTIAL = 'The security key has no credential for this site.';
const EXCLUDED_TEXT = 'The user attempted to register an authenticator that contains one of the credentials already registered with the relying party.';
const OPTIONS = { challenge: { __binary__: 'AQ' }, rpId: 'example.com', timeout: 60000 };

/** A get whose key was touched and holds no credential: the host's error frame for it (ErrorMapping.noCredential). */
async function failedOnce(t, { type = 'get', options = OPTIONS, error = { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail = NO_CREDENTIAL } = {}) {
  const request = await started(t, type, options);
  t.hostSays({ id: request.id, type: 'status', status: 'touch' });
  await settle();
  const window = t.windowPage(0);
  t.hostSays({ id: request.id, type: 'error', error, detail, retry: true });
  await settle();
  return { ...request, window };
}

/** The user presses Try again `after` ms after the failure; returns the host id the request went out under again. */
async function triedAgain(t, window, after = 0) {
  t.advance(after);
  window.onMessage.fire({ kind: 'try-again' });
  await settle();
  return t.native.sent.at(-1).id;
}

test('a failure the user may retry stays in the window with Try again; the page hears nothing yet', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  assert.deepEqual(port.sent, [], 'the page waits, as under Chromium\'s error sheet');
  const view = window.sent.at(-1);
  assert.deepEqual([view.status, view.detail, view.retry, view.final], ['error', NO_CREDENTIAL, true, false]);
  assert.equal(t.windows.removed.length, 0);
});

test('Try again sends the same request to the host again; the same window follows it; the page gets one result', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window, id } = await failedOnce(t);
  const first = t.native.sent.at(-1);
  window.onMessage.fire({ kind: 'try-again' });
  await settle();
  assert.equal(window.sent.at(-1).status, 'processing', 'until the retry\'s first status');
  const again = t.native.sent.at(-1);
  assert.notEqual(again.id, id);
  assert.deepEqual({ ...again, id: undefined }, { ...first, id: undefined }, 'same type, origin and options: the same clientDataJSON');
  t.hostSays({ id: again.id, type: 'status', status: 'touch' });
  await settle();
  assert.equal(t.windows.created.length, 1, 'no second window');
  assert.equal(window.sent.at(-1).status, 'touch');
  t.hostSays({ id: again.id, type: 'result', credential: { id: 'x' } });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'result', rid: 'A', credential: { id: 'x' } }]);
  assert.deepEqual(t.windows.removed, [100]);
});

test('Close gives the page the failure\'s own error, as Chromium answers a cancel after its error sheet', async () => {
  const t = setup({ bridgeClock: true });
  const excluded = { name: 'InvalidStateError', message: EXCLUDED_TEXT };
  const { port, window } = await failedOnce(t, { type: 'create', error: excluded, detail: 'The security key already holds a credential registered with this site.' });
  const sentToHost = t.native.sent.length;
  window.onMessage.fire({ kind: 'close' });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: excluded }]);
  assert.equal(t.native.sent.length, sentToHost, 'nothing more for the host: it already answered');
  assert.deepEqual(t.windows.removed, [100]);
});

test('the user closing the window during the retried attempt cancels it; the page gets the failure that was shown', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  window.onMessage.fire({ kind: 'try-again' });
  await settle();
  const again = t.native.sent.at(-1).id;
  t.prompts.windowRemoved(100);
  assert.deepEqual(t.native.sent.at(-1), { id: again, type: 'cancel' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
});

test('the page\'s time runs out while the failure is shown: NotAllowedError, and the window says the time ran out', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  t.advance(60000);
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  const view = window.sent.at(-1);
  assert.deepEqual([view.status, view.detail, view.retry, view.final], ['error', TIMED_OUT, false, true]);
  window.onMessage.fire({ kind: 'try-again' });
  await settle();
  assert.equal(port.sent.length, 1, 'too late to try again');
});

test('the time counts from the first attempt: a retry is cut off at the page\'s deadline, not the host\'s new one', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  const again = await triedAgain(t, window, 40000);
  t.hostSays({ id: again, type: 'status', status: 'touch' });
  t.advance(19999);
  assert.deepEqual(port.sent, []);
  t.advance(1);
  assert.deepEqual(t.native.sent.at(-1), { id: again, type: 'cancel' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  assert.equal(window.sent.at(-1).detail, TIMED_OUT);
});

test('a failure before any window was needed (the key answered at once) opens the window with Try again too', async () => {
  const t = setup({ bridgeClock: true });
  const { port, id } = await started(t, 'get', OPTIONS);
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail: NO_CREDENTIAL, retry: true });
  await settle();
  assert.deepEqual(port.sent, [], 'the page waits, as Chromium\'s dialog is always up');
  assert.equal(t.windows.created.length, 1);
  const window = t.windowPage(0);
  assert.equal(window.sent.at(-1).retry, true);
  window.onMessage.fire({ kind: 'close' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
});

test('a window opened behind, without a press of the user\'s in the page, only says why: the page is answered', async () => {
  const t = setup({ bridgeClock: true });
  const { port, id } = await started(t, 'get', OPTIONS, { pressed: null });
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  const window = t.windowPage(0);
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail: NO_CREDENTIAL, retry: true });
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  const view = window.sent.at(-1);
  assert.deepEqual([view.status, view.detail, view.retry, view.final], ['error', NO_CREDENTIAL, false, true]);
});

test('a failure without `retry` ends the request at once, as before', async () => {
  const t = setup({ bridgeClock: true });
  const { port, id } = await started(t, 'get', OPTIONS);
  t.hostSays({ id, type: 'status', status: 'touch' });
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail: 'PIN entry was cancelled.' });
  await settle();
  assert.equal(port.sent.length, 1);
});

test('while a failure is shown the tab has a request: a second one is refused; the page aborting closes the window', async () => {
  const t = setup({ bridgeClock: true });
  const { port, page } = await failedOnce(t);
  const sentToHost = t.native.sent.length;
  page({ kind: 'request', rid: 'B', type: 'get', options: OPTIONS, frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true, lastInput: null } });
  await settle();
  assert.equal(port.sent.at(-1).rid, 'B');
  assert.equal(port.sent.at(-1).error.name, 'NotAllowedError');
  page({ kind: 'cancel', rid: 'A' });
  await settle();
  assert.deepEqual(t.windows.removed, [100]);
  assert.equal(t.native.sent.length, sentToHost, 'the host already answered: nothing to cancel');
  assert.equal(port.sent.filter((m) => m.rid === 'A').length, 0, 'the page rejects its own aborted promise');
  t.advance(60000);
  assert.equal(port.sent.filter((m) => m.rid === 'A').length, 0, 'nothing after the abort');
});

test('a retry whose tab loses the focus to another tab waits again in its window, under the page\'s first deadline', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  const again = await triedAgain(t, window, 40000);
  t.hostSays({ id: again, type: 'status', status: 'touch' });
  await settle();
  t.unfocused.add(1);
  const other = t.frame(2);
  other.page({ kind: 'request', rid: 'B', type: 'get', options: OPTIONS, frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true, lastInput: null } });
  await settle();
  assert.deepEqual(t.native.sent.at(-1), { id: again, type: 'cancel' }, 'the focused tab goes first');
  t.hostSays({ id: again, type: 'error', error: { name: 'AbortError', message: 'cancelled' } });
  await settle();
  assert.deepEqual(port.sent, [], 'tab 1 waits for its focus again');
  assert.deepEqual(t.windows.removed, [], 'its window stays, as Chromium\'s dialog stays with its tab');
  const view = window.sent.at(-1);
  assert.deepEqual([view.status, view.retry, view.final, view.anotherWay], ['processing', false, false, false]);
  t.advance(20000);
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  assert.equal(window.sent.at(-1).detail, TIMED_OUT, 'the window says the time ran out');
});

test('a retry sent again once its tab has the focus back goes on in the same window; its failure is held again', async () => {
  const t = setup({ bridgeClock: true });
  const { port, window } = await failedOnce(t);
  const again = await triedAgain(t, window);
  t.unfocused.add(1);
  const other = t.frame(2);
  other.page({ kind: 'request', rid: 'B', type: 'get', options: OPTIONS, frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true, lastInput: null } });
  await settle();
  t.hostSays({ id: again, type: 'error', error: { name: 'AbortError', message: 'cancelled' } });
  await settle();
  const theirs = t.native.sent.at(-1).id;
  t.hostSays({ id: theirs, type: 'result', credential: { id: 'b' } });
  t.unfocused.delete(1);
  t.unfocused.add(2);
  t.bridge.focusChanged();
  await settle();
  const third = t.native.sent.at(-1).id;
  assert.notEqual(third, again);
  t.hostSays({ id: third, type: 'status', status: 'touch' });
  await settle();
  assert.equal(window.sent.at(-1).status, 'touch', 'the same window follows the request');
  assert.equal(t.windows.created.length, 1, 'no new window');
  t.hostSays({ id: third, type: 'error', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail: NO_CREDENTIAL, retry: true });
  await settle();
  assert.deepEqual(port.sent, [], 'held again: the window is still the one the user\'s press brought forward');
  assert.equal(window.sent.at(-1).retry, true);
  window.onMessage.fire({ kind: 'close' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
});

test('closing the window of a retry waiting for its tab gives the page the failure that was shown', async () => {
  const t = setup({ bridgeClock: true });
  const excluded = { name: 'InvalidStateError', message: EXCLUDED_TEXT };
  const { port, window } = await failedOnce(t, { type: 'create', error: excluded, detail: 'The security key already holds a credential registered with this site.' });
  const again = await triedAgain(t, window);
  t.unfocused.add(1);
  t.frame(2).page({ kind: 'request', rid: 'B', type: 'get', options: OPTIONS, frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true, lastInput: null } });
  await settle();
  t.hostSays({ id: again, type: 'error', error: { name: 'AbortError', message: 'cancelled' } });
  await settle();
  const sentToHost = t.native.sent.length;
  t.prompts.windowRemoved(100);
  await settle();
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: excluded }]);
  assert.equal(t.native.sent.length, sentToHost, 'nothing for the host: the retry was only waiting');
  t.unfocused.delete(1);
  t.bridge.focusChanged();
  await settle();
  assert.equal(t.native.sent.length, sentToHost, 'and it is not sent again');
});
