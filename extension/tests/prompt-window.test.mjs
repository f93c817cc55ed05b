// background/prompt-window.js wired to the real bridge (router.js) as background/main.js wires them, with fake
// ports and a fake windows API: which statuses open the security-key window, what it is told, what the page
// never gets, and what closing it does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as promptWindow from '../background/prompt-window.js';
import { COOLDOWN_MS, USER_ACTION_MS } from '../background/window-rate.js';
import { CHROMIUM_NOT_ALLOWED, EXTENSION, PAGE_URL, fakePort, settle, setup, started } from './prompt-bridge.mjs';

test('a request that needs no user action (the key answered within 50 ms: no status) opens no window', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'result', credential: { id: 'x' } });
  await settle();
  assert.equal(t.windows.created.length, 0);
  assert.deepEqual(port.sent.map((m) => m.kind), ['result']);
});

test('the first status the user must see opens one focused popup window of our own page, above the tab', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch', detail: 'Touch your security key.' });
  t.hostSays({ id, type: 'status', status: 'processing' });
  await settle();
  assert.deepEqual(t.windows.created, [{ url: `${PAGE_URL}?w=token1`, type: 'popup', focused: true, width: promptWindow.WIDTH, height: promptWindow.HEIGHT, left: 290, top: 80 }]);
  assert.equal(t.prompts.isPromptWindowOf(100, 1), true);
  assert.equal(t.prompts.isPromptWindow(1), false);
  assert.deepEqual(port.sent, [], 'the page learns nothing about the ceremony');
});

test('the window comes to the front again when the user must act in it (chooser, error), not for every status', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'pin' });
  await settle();
  t.hostSays({ id, type: 'status', status: 'touch' });
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  assert.deepEqual(t.windows.focused, [100]);
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'The security key has no credential for this site.' });
  assert.deepEqual(t.windows.focused, [100, 100]);
});

test('"processing" alone opens nothing: it only updates a window already shown', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'processing' });
  await settle();
  assert.equal(t.windows.created.length, 0);
});

for (const status of ['insert-key', 'select-key', 'touch', 'pin', 'uv', 'some-future-status']) {
  test(`status "${status}" opens the window`, async () => {
    const t = setup();
    const { id } = await started(t);
    t.hostSays({ id, type: 'status', status, detail: 'why' });
    await settle();
    assert.equal(t.windows.created.length, 1);
  });
}

test('the window is told the site from the bridge\'s own records (sender origin, checked rp.id, tab), and each status', async () => {
  const t = setup();
  const { id } = await started(t, 'create', { challenge: { __binary__: 'AQ' }, rp: { id: 'example.com', name: 'Example' }, user: {} });
  t.hostSays({ id, type: 'status', status: 'pin', detail: 'Enter your security key\'s PIN in the dialog.' });
  await settle();
  const page = t.windowPage();
  const site = { type: 'create', origin: 'https://login.example.com', topOrigin: '', rpId: 'example.com' };
  assert.deepEqual(page.sent, [{ kind: 'view', site, status: 'pin', detail: 'Enter your security key\'s PIN in the dialog.', attemptsLeft: null, accounts: null, anotherWay: true, retry: false, final: false }]);
  t.hostSays({ id, type: 'status', status: 'touch', detail: '' });
  assert.deepEqual(page.sent.at(-1), { kind: 'view', site, status: 'touch', detail: '', attemptsLeft: null, accounts: null, anotherWay: true, retry: false, final: false });
  // After a wrong PIN: the attempts left, as the host's number (the window words it); nothing else is taken for one.
  t.hostSays({ id, type: 'status', status: 'pin', attemptsLeft: 2 });
  assert.deepEqual(page.sent.at(-1), { kind: 'view', site, status: 'pin', detail: '', attemptsLeft: 2, accounts: null, anotherWay: true, retry: false, final: false });
  t.hostSays({ id, type: 'status', status: 'pin', attemptsLeft: '2' });
  assert.equal(page.sent.at(-1).attemptsLeft, null);
});

test('the request settling closes the window; the page gets only the result', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  t.hostSays({ id, type: 'result', credential: { id: 'x' } });
  assert.deepEqual(t.windows.removed, [100]);
  assert.equal(t.prompts.openCount(), 0);
  assert.deepEqual(port.sent, [{ kind: 'result', rid: 'A', credential: { id: 'x' } }]);
});

test('the chooser: names only go to the window, one trusted choice goes to the host, the page sees none of it', async () => {
  const t = setup();
  const { port, id } = await started(t);
  const accounts = [{ name: 'a@x', displayName: 'A', id: { __binary__: 'AQ' } }, { name: 'b@x', displayName: 'B', id: { __binary__: 'Ag' } }];
  t.hostSays({ id, type: 'status', status: 'select-account', detail: 'Choose an account.', accounts });
  await settle();
  const page = t.windowPage();
  assert.deepEqual(page.sent[0].accounts, [{ name: 'a@x', displayName: 'A' }, { name: 'b@x', displayName: 'B' }]);
  page.onMessage.fire({ kind: 'select', index: 2 });  // out of range
  page.onMessage.fire({ kind: 'select', index: '1' });
  page.onMessage.fire({ kind: 'select', index: 1 });
  page.onMessage.fire({ kind: 'select', index: 0 });  // one answer per chooser
  assert.deepEqual(t.native.sent.slice(2), [{ id, type: 'select', index: 1 }]);
  assert.equal(page.sent.at(-1).status, 'processing');
  assert.equal(page.sent.at(-1).accounts, null);
  assert.deepEqual(port.sent, []);
});

test('closing the window while the request runs is Cancel: the host is told, the page gets NotAllowedError', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  t.prompts.windowRemoved(100);
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  assert.deepEqual(t.windows.removed, [], 'already gone');
  t.hostSays({ id, type: 'error', error: { name: 'AbortError', message: 'cancelled' } }); // the host's late answer
  assert.equal(port.sent.length, 1);
});

test('the window\'s Cancel button is the same Cancel, and closes it', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  await settle();
  t.windowPage().onMessage.fire({ kind: 'close' });
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
  assert.equal(port.sent[0].error.name, 'NotAllowedError');
  assert.deepEqual(t.windows.removed, [100]);
});

test('only our prompt page at its own URL, with the token of an open window, is attached', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  const strangers = [
    t.windowPage(0, 'https://login.example.com/signin?w=token1'),          // a content script's port
    t.windowPage(0, `${EXTENSION}options/options.html?w=token1`),           // another page of ours
    t.windowPage(0, `${PAGE_URL}?w=token2`),                                // no such window
    t.windowPage(0, PAGE_URL),
  ];
  for (const port of strangers) {
    assert.equal(port.disconnected, true);
    assert.deepEqual(port.sent, []);
    port.onMessage.fire({ kind: 'select', index: 0 });
  }
  assert.equal(t.native.sent.length, 2, 'nothing reached the host');
});

test('a copy of the window\'s page, with its token, in a window the background did not open for it, gets nothing', async () => {
  // Another extension with the "tabs" permission reads the window's URL and opens it in a window of its own (both
  // browsers let it), placed where the user is about to click.
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  await settle();
  const tabless = fakePort({ id: 'ext', url: t.windows.created[0].url });
  t.prompts.attach(tabless, PAGE_URL);
  const copies = [
    t.windowPage(0, undefined, { id: 7, windowId: 70 }),      // its own window
    t.windowPage(0, undefined, { id: 7, windowId: 100 }),     // another tab in our window
    tabless,
  ];
  for (const copy of copies) {
    assert.equal(copy.disconnected, true);
    assert.deepEqual(copy.sent, []);
    copy.onMessage.fire({ kind: 'select', index: 0 });
    copy.onMessage.fire({ kind: 'another-way' });
    copy.onMessage.fire({ kind: 'close' });
  }
  assert.equal(t.native.sent.length, 2, 'nothing reached the host');
  assert.deepEqual([port.sent, t.windows.removed], [[], []]);
  const page = t.windowPage();
  assert.equal(page.disconnected, false);
  assert.equal(page.sent[0].status, 'select-account', 'the window itself still gets its view');
});

test('the window\'s page going away while the window stays (navigated by another extension) is Cancel, and the window goes', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  const page = t.windowPage();
  page.onDisconnect.fire(page);
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
  assert.equal(port.sent[0].error.name, 'NotAllowedError');
  assert.deepEqual(t.windows.removed, [100]);

  const final = setup();
  const other = await started(final);
  final.hostSays({ id: other.id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'No PIN.' });
  await settle();
  final.windowPage().onDisconnect.fire();
  assert.deepEqual(final.windows.removed, [100], 'a window showing why a request failed goes too');
  assert.equal(final.native.sent.filter((f) => f.type === 'cancel').length, 0, 'nothing to cancel');
});

test('the page connecting before windows.create answers is taken once the window is known, if it is in it', async () => {
  const t = setup({ deferWindows: true });
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  const url = t.windows.created[0].url;
  const copy = t.windowPage(0, url, { id: 7, windowId: 70 });
  const page = t.windowPage(0, url);
  assert.deepEqual([copy.disconnected, page.disconnected, page.sent], [false, false, []]);
  t.windows.pending[0]();
  await settle();
  assert.equal(copy.disconnected, true);
  assert.deepEqual(copy.sent, []);
  assert.equal(page.disconnected, false);
  assert.equal(page.sent.at(-1).status, 'touch');

  const ended = setup({ deferWindows: true });
  const other = await started(ended);
  ended.hostSays({ id: other.id, type: 'status', status: 'touch' });
  await settle();
  const early = ended.windowPage();
  ended.hostSays({ id: other.id, type: 'result', credential: {} });
  assert.equal(early.disconnected, true, 'the request ended before its window existed');
});

test('an error with a detail for the user keeps (or opens) the window to say why; the detail never reaches the page', async () => {
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'pin' });
  await settle();
  const page = t.windowPage();
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED }, detail: 'Your PIN is blocked.' });
  assert.deepEqual(port.sent, [{ kind: 'error', rid: 'A', error: { name: 'NotAllowedError', message: CHROMIUM_NOT_ALLOWED } }]);
  assert.deepEqual(page.sent.at(-1), { kind: 'view', site: page.sent[0].site, status: 'error', detail: 'Your PIN is blocked.', attemptsLeft: null, accounts: null, anotherWay: false, retry: false, final: true });
  assert.deepEqual(t.windows.removed, []);
  // The window that says why belongs to the tab that asked: focused, it keeps that tab's focus (and no other's).
  assert.equal(t.prompts.isPromptWindowOf(100, 1), true);
  assert.equal(t.prompts.isPromptWindowOf(100, 2), false);
  page.onMessage.fire({ kind: 'close' });
  assert.deepEqual(t.windows.removed, [100]);
  assert.equal(t.native.sent.filter((f) => f.type === 'cancel').length, 0, 'nothing to cancel');

  const second = setup();
  const other = await started(second);
  second.hostSays({ id: other.id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'This key has no PIN set.' });
  await settle();
  assert.equal(second.windows.created.length, 1, 'an error the user must read opens the window');
  assert.equal(second.windowPage().sent[0].final, true);
});

test('a reason about the page\'s own request (TypeError, SecurityError …) opens no window; with one open, it is shown', async () => {
  for (const name of ['TypeError', 'SecurityError', 'NotSupportedError', 'SyntaxError', 'AbortError']) {
    const t = setup();
    const { port, id } = await started(t);
    t.hostSays({ id, type: 'error', error: { name, message: 'm' }, detail: 'The relying party ID is not a registrable suffix of the origin.' });
    await settle();
    assert.equal(t.windows.created.length, 0, name);
    assert.equal(port.sent[0].error.name, name);
  }
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  const page = t.windowPage();
  t.hostSays({ id, type: 'error', error: { name: 'NotSupportedError', message: 'm' }, detail: 'No algorithm the key supports.' });
  assert.deepEqual([page.sent.at(-1).status, page.sent.at(-1).detail, page.sent.at(-1).final], ['error', 'No algorithm the key supports.', true]);
});

test('errors without a detail, and the page aborting, close the window without a word', async () => {
  const t = setup();
  const { page, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  page({ kind: 'cancel', rid: 'A' });
  assert.deepEqual(t.windows.removed, [100]);
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
});

test('"another way", offered while a key is to be plugged in, touched or verified on: the host stops, the page goes below the bridge', async () => {
  for (const status of ['insert-key', 'key-unusable', 'select-key', 'touch', 'pin', 'set-pin', 'uv']) {
    const t = setup();
    const { port, id } = await started(t);
    t.hostSays({ id, type: 'status', status });
    await settle();
    const page = t.windowPage();
    assert.equal(page.sent.at(-1).anotherWay, true, status);
    page.onMessage.fire({ kind: 'another-way' });
    assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' }, 'the host stops touching the key');
    assert.deepEqual(t.windows.removed, [100], 'the window closes');
    assert.deepEqual(port.sent, [{ kind: 'fallback', rid: 'A', reason: 'another-way' }], 'no error: the page\'s call goes on below');
    assert.deepEqual(t.sitesAdded, [], 'once only, unless the user asked for always');
    t.hostSays({ id, type: 'status', status: 'touch' }); // a late status of the cancelled ceremony
    t.hostSays({ id, type: 'error', error: { name: 'AbortError', message: 'cancelled' } });
    await settle();
    assert.equal(t.windows.created.length, 1, 'no stale window');
    assert.equal(port.sent.length, 1);
  }
});

test('"another way" with "always for this site" lists the trusted origin', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'insert-key' });
  await settle();
  t.windowPage().onMessage.fire({ kind: 'another-way', always: true });
  await settle();
  assert.deepEqual(t.sitesAdded, ['https://login.example.com']);
  // The site's next request goes below at once, whatever storage has said yet.
  const next = t.frame();
  next.page({ kind: 'request', rid: 'B', type: 'get', options: { challenge: { __binary__: 'AQ' }, rpId: 'example.com' },
    frame: { opaque: false, secure: true, sameOriginWithAncestors: true, topOpaque: null, policy: null, activation: true } });
  await settle();
  assert.deepEqual(next.port.sent, [{ kind: 'fallback', rid: 'B', reason: 'site-setting' }]);
  assert.equal(t.native.sent.filter((f) => f.type === 'get').length, 1, 'only the first reached the host');
});

test('"another way" is not offered, and not taken, once the key is in use or the request is over', async () => {
  for (const status of ['processing', 'select-account', 'some-future-status']) {
    const t = setup();
    const { port, id } = await started(t);
    t.hostSays({ id, type: 'status', status: 'touch' });
    t.hostSays({ id, type: 'status', status, accounts: [{ name: 'a' }, { name: 'b' }] });
    await settle();
    const page = t.windowPage();
    assert.equal(page.sent.at(-1).anotherWay, false, status);
    page.onMessage.fire({ kind: 'another-way' });
    assert.equal(t.native.sent.filter((f) => f.type === 'cancel').length, 0, status);
    assert.deepEqual(port.sent, [], status);
  }
  const t = setup();
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'This key has no PIN set.' });
  await settle();
  const page = t.windowPage();
  assert.equal(page.sent.at(-1).anotherWay, false, 'a window saying why has nothing to hand on');
  page.onMessage.fire({ kind: 'another-way' });
  assert.deepEqual(port.sent.map((m) => m.kind), ['error']);
});

test('closing the tab cancels its request and closes its window', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  t.bridge.tabClosed(1);
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
  assert.deepEqual(t.windows.removed, [100]);
});

test('a request that ends while its window is still opening closes the window once it exists', async () => {
  const t = setup({ deferWindows: true });
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  t.hostSays({ id, type: 'result', credential: {} });
  assert.deepEqual(t.windows.removed, []);
  t.windows.pending[0]();
  await settle();
  assert.deepEqual(t.windows.removed, [100]);
  assert.equal(t.prompts.isPromptWindowOf(100, 1), true, 'closing, it may still hold its tab\'s focus');
});

test('a window of ours that closed is still known as its tab\'s (the focus it may hold while it goes, or last held)', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  t.hostSays({ id, type: 'result', credential: {} });
  assert.deepEqual(t.windows.removed, [100]);
  t.prompts.windowRemoved(100);
  assert.equal(t.prompts.isPromptWindowOf(100, 1), true);
  assert.equal(t.prompts.isPromptWindowOf(100, 2), false, 'never another tab\'s');
  assert.equal(t.prompts.isPromptWindow(100), true);
  assert.equal(t.prompts.isPromptWindow(7), false);
  assert.equal(t.prompts.wasPromptWindowOf(100, 1), true, 'closed');
  assert.equal(t.prompts.wasPromptWindowOf(100, 2), false);
});

test('a window of ours still open is not one that was', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  assert.equal(t.prompts.isPromptWindowOf(100, 1), true);
  assert.equal(t.prompts.wasPromptWindowOf(100, 1), false);
});

test('a window that cannot be opened ends the request as a cancel: no chooser waits for a choice nobody can make', async () => {
  const t = setup({ windowsFail: true });
  const { port, id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  await settle();
  assert.deepEqual(t.native.sent.at(-1), { id, type: 'cancel' });
  assert.equal(port.sent[0].error.name, 'NotAllowedError');
  assert.equal(t.prompts.openCount(), 0);
});

/** One get() of tab 1 that the key makes wait (a `touch` status), then aborted by the page and ended by the host. */
async function askedAndAborted(t, pressed) {
  const { page, id } = await started(t, 'get', undefined, { pressed });
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  page({ kind: 'cancel', rid: 'A' });
  t.hostSays({ id, type: 'error', error: { name: 'AbortError', message: 'cancelled' } });
  await settle();
}

test('a page looping get() and abort() gets one window per cooldown, none of them focused, without a press of the user', async () => {
  const t = setup();
  for (let i = 0; i < 30; i++) {
    await askedAndAborted(t, null);
    t.advance(400);   // 30 requests over 12 s
  }
  assert.equal(t.windows.created.length, 2, 'the first, and one after the cooldown');
  assert.deepEqual(t.windows.created.map((w) => w.focused), [false, false]);
  assert.deepEqual(t.windows.focused, []);
  assert.equal(t.prompts.openCount(), 0);
});

test('a press of the user\'s in the page opens a focused window at once, once per press', async () => {
  const t = setup();
  await askedAndAborted(t, null);                 // a window, unfocused: the cooldown starts
  const { id } = await started(t, 'get', undefined, { pressed: 50 });
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  assert.deepEqual(t.windows.created.map((w) => w.focused), [false, true], 'the press opens it within the cooldown, focused');
  t.hostSays({ id, type: 'result', credential: {} });
  await settle();
  const again = await started(t, 'get', undefined, { pressed: 50 });   // the same press (clock unmoved): no second focus
  t.hostSays({ id: again.id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  await settle();
  assert.equal(t.windows.created.length, 2, 'within the cooldown, without a new press: no window yet');
  t.advance(COOLDOWN_MS);
  await settle();
  assert.deepEqual(t.windows.created.map((w) => w.focused), [false, true, false], 'the chooser opens once the cooldown ends');
  assert.deepEqual(t.windows.focused, [], 'and is not brought to the front');
});

test('a press long before the request is not the user\'s action for it', async () => {
  const t = setup();
  const { id } = await started(t, 'get', undefined, { pressed: USER_ACTION_MS + 1 });
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  assert.deepEqual(t.windows.created.map((w) => w.focused), [false]);
});

test('a window left open to show an error is reused by the tab\'s next request: one window per tab', async () => {
  const t = setup();
  const first = await started(t);
  t.hostSays({ id: first.id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'Your PIN is blocked.' });
  await settle();
  const page = t.windowPage();
  const second = await started(t);
  t.hostSays({ id: second.id, type: 'status', status: 'touch' });
  await settle();
  assert.equal(t.windows.created.length, 1);
  assert.deepEqual(t.windows.removed, []);
  assert.deepEqual([page.sent.at(-1).status, page.sent.at(-1).final], ['touch', false]);
  t.hostSays({ id: second.id, type: 'result', credential: {} });
  assert.deepEqual(t.windows.removed, [100]);
});

test('a request waiting to be sent again keeps its window, showing "processing"; a window left to show an error stays as it is', async () => {
  const t = setup();
  const { id } = await started(t);
  t.hostSays({ id, type: 'status', status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  await settle();
  const window = t.windowPage(0);
  t.prompts.waiting(id);
  const view = window.sent.at(-1);
  assert.deepEqual([view.status, view.accounts, view.anotherWay, view.retry, view.final], ['processing', null, false, false, false]);
  window.onMessage.fire({ kind: 'select', index: 0 });
  assert.equal(t.native.sent.filter((m) => m.type === 'select').length, 0, 'no choice from a chooser no longer shown');
  t.hostSays({ id, type: 'error', error: { name: 'NotAllowedError', message: '' }, detail: 'The security key has no credential for this site.' });
  const shown = window.sent.length;
  t.prompts.waiting(id);
  assert.equal(window.sent.length, shown);
  assert.deepEqual(t.windows.removed, []);
});
