// prompt/view.js: the sentences the user reads, who asks, and which input counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as prompt from '../prompt/view.js';
import { ACTIVATION_DELAY_MS } from '../common/activation-guard.js';
import { ERROR_DETAILS } from '../common/protocol.js';

test('a sentence for every status the host sends; unknown ones read as "working"', () => {
  assert.equal(prompt.statusText('touch'), 'Touch your security key.');
  assert.equal(prompt.statusText('pin'), 'Enter your PIN in the dialog.');
  assert.equal(prompt.statusText('set-pin'), 'This site requires a PIN. Choose a PIN for your security key in the dialog.');
  assert.equal(prompt.statusText('insert-key'), 'Insert your security key.');
  assert.equal(prompt.statusText('select-key'), 'Touch the security key you want to use.');
  assert.equal(prompt.statusText('select-account'), 'Choose an account to sign in with.');
  assert.match(prompt.statusText('uv'), /fingerprint/);
  assert.equal(prompt.statusText('error'), 'The security key request failed.');
  assert.equal(prompt.statusText('toString'), prompt.statusText('processing'));
  assert.equal(prompt.statusText('new-status'), 'Working with your security key…');
});

test('the host\'s detail is shown unless it repeats the sentence', () => {
  assert.equal(prompt.detailText('touch', 'Touch your security key.'), '');
  assert.equal(prompt.detailText('pin', 'This site requires a PIN. Choose a PIN for your security key in the dialog.'),
    'This site requires a PIN. Choose a PIN for your security key in the dialog.');
  assert.equal(prompt.detailText('error', '  Your PIN is blocked.  '), 'Your PIN is blocked.');
  assert.equal(prompt.detailText('touch', undefined), '');
  assert.equal(prompt.detailText('touch', { toString: () => 'x' }), '');
});

test('after a wrong PIN the window words the attempts left the host sends as a number', () => {
  assert.equal(prompt.detailText('pin', undefined, 7), 'Wrong PIN. 7 attempts left.');
  assert.equal(prompt.detailText('pin', '', 1), 'Wrong PIN. 1 attempt left.');
  assert.equal(prompt.detailText('pin', 'Wrong PIN. 9 attempts left.', 2), 'Wrong PIN. 2 attempts left.', 'the number wins');
  // An older host sent the sentence as detail and no number: it is shown as it came.
  assert.equal(prompt.detailText('pin', 'Wrong PIN. 2 attempts left.'), 'Wrong PIN. 2 attempts left.');
  assert.equal(prompt.detailText('pin', undefined, null), '');
  assert.equal(prompt.detailText('pin', undefined, '3'), '');
  assert.equal(prompt.detailText('pin', undefined, -1), '');
  assert.equal(prompt.detailText('touch', undefined, 3), '', 'only a pin status has attempts');
});

test('account names lose control and format characters (bidi overrides, zero-width, line separators)', () => {
  assert.deepEqual(prompt.accountLabel({ name: 'al\u202eice\u2066@\u200bexample.com\u2028', displayName: '\u0007Alice\u200f' }),
    { primary: 'Alice', secondary: 'alice@example.com' });
  assert.equal(prompt.plainText('\u202e\u2069'), '');
  assert.equal(prompt.plainText('Zoë 李'), 'Zoë 李');
  assert.equal(prompt.plainText(7), '');
});

test('account labels: display name over account name; never empty', () => {
  assert.deepEqual(prompt.accountLabel({ name: 'alice@example.com', displayName: 'Alice' }), { primary: 'Alice', secondary: 'alice@example.com' });
  assert.deepEqual(prompt.accountLabel({ name: 'bob', displayName: '' }), { primary: 'bob', secondary: '' });
  assert.deepEqual(prompt.accountLabel({ name: 'same', displayName: 'same' }), { primary: 'same', secondary: '' });
  assert.deepEqual(prompt.accountLabel({}), { primary: 'Unnamed account', secondary: '' });
});

test('the chooser never shows two choices alike: repeated labels say which of the list they are', () => {
  assert.deepEqual(prompt.accountLabels([{}, {}]), [
    { primary: 'Unnamed account', secondary: 'account 1 of 2 on this key' },
    { primary: 'Unnamed account', secondary: 'account 2 of 2 on this key' },
  ]);
  assert.deepEqual(prompt.accountLabels([{ name: 'alice' }, {}, { name: 'alice' }]).map((l) => l.secondary),
    ['account 1 of 3 on this key', '', 'account 3 of 3 on this key']);
  assert.deepEqual(prompt.accountLabels([{ name: 'a' }, { name: 'b' }]).map((l) => l.secondary), ['', '']);
});

test('what is asked, of which site: the action and the rp.id as the headline', () => {
  assert.equal(prompt.siteLines({ type: 'get', origin: 'https://login.example.com', rpId: 'example.com' }).headline,
    'Sign in to example.com');
  assert.equal(prompt.siteLines({ type: 'create', origin: 'https://login.example.com', rpId: 'example.com' }).headline,
    'Register a passkey with example.com');
  assert.equal(prompt.siteLines({ type: 'get', origin: 'https://idp.example:8443' }).headline, 'Sign in to idp.example:8443');
  assert.equal(prompt.siteLines({ type: 'get' }).headline, 'Unknown site');
});

test('who asks: rp.id as the headline, then the origin and the embedding site; no text the page chose', () => {
  // A title with a right-to-left override reads "Asked by https://accounts.google.com": it is never shown.
  const spoof = '\u202e' + [...'Asked by https://accounts.google.com'].reverse().join('');
  assert.deepEqual(prompt.siteLines({ origin: 'https://login.example.com', rpId: 'example.com', tabTitle: spoof }),
    { headline: 'example.com', who: 'Asked by https://login.example.com' });
  assert.deepEqual(prompt.siteLines({ origin: 'https://idp.example:8443', topOrigin: 'https://shop.example', rpId: '' }),
    { headline: 'idp.example:8443', who: 'Asked by https://idp.example:8443, inside https://shop.example' });
  assert.equal(prompt.siteLines(undefined).headline, 'Unknown site');
});

/** A stand-in for the window's document: just what view.js touches, with event dispatch by hand. */
function fakeDocument() {
  const on = (target) => (type, fn) => { (target.listeners[type] ||= []).push(fn); };
  const element = (tag) => {
    const e = { tag, children: [], dataset: {}, listeners: {}, hidden: false, textContent: '', parentNode: null, scrollHeight: 0, clientHeight: 0 };
    e.addEventListener = on(e);
    e.appendChild = (child) => { child.parentNode = e; e.children.push(child); return child; };
    e.replaceChildren = () => { e.children = []; };
    e.querySelectorAll = (sel) => e.children.flatMap((c) => (c.tag === sel ? [c] : c.querySelectorAll(sel)));
    e.querySelector = (sel) => e.querySelectorAll(sel)[0] || null;
    e.focus = () => { doc.activeElement = e; };
    return e;
  };
  const ids = Object.fromEntries(['site', 'who', 'text', 'detail', 'accounts', 'close', 'another', 'another-way', 'always', 'always-text', 'manage-keys', 'retry'].map((id) => [id, element(id === 'accounts' ? 'ul' : 'p')]));
  const doc = {
    listeners: {}, documentElement: { dataset: {} }, body: {}, title: '', visibilityState: 'visible', activeElement: null,
    getElementById: (id) => ids[id], createElement: element,
  };
  doc.addEventListener = on(doc);
  const fire = (target, type, event) => {
    for (const fn of target.listeners[type] || []) fn({ target, preventDefault() {}, ...event });
  };
  return { doc, ids, fire };
}

test('the chooser: a press and its release after the guard choose; a held or repeated key, or a press from before, never do', () => {
  const { doc, ids, fire } = fakeDocument();
  const sent = [];
  const clock = { t: 0, now: () => clock.t };
  const view = prompt.createPromptView(doc, { postMessage: (m) => sent.push(m) }, clock, async () => {});
  view.render({ site: { origin: 'https://example.com', rpId: 'example.com' }, status: 'select-account', accounts: [{ name: 'a' }, { name: 'b' }] });
  const [first, second] = ids.accounts.querySelectorAll('button');
  const key = (type, k, extra = {}) => fire(doc, type, { key: k, isTrusted: true, target: doc.activeElement, ...extra });
  key('keydown', 'Enter');                                       // held down since before the chooser took input
  clock.t = ACTIVATION_DELAY_MS + 1;
  for (let i = 0; i < 10; i++) key('keydown', 'Enter', { repeat: true });
  key('keyup', 'Enter');
  fire(second, 'pointerdown', { isTrusted: true, detail: 1 });   // a click that began before the guard…
  clock.t += 100;
  fire(second, 'click', { isTrusted: false, detail: 1 });         // …and script clicks
  fire(second, 'click', { isTrusted: true, detail: 0 });          // a click the keyboard made: its key decides
  assert.deepEqual(sent, [], 'nothing chosen');
  fire(second, 'pointerdown', { isTrusted: true, detail: 1 });
  fire(second, 'click', { isTrusted: true, detail: 1 });
  assert.deepEqual(sent, [{ kind: 'select', index: 1 }]);
  first.focus();
  key('keydown', 'Enter');
  key('keyup', 'Enter');
  assert.deepEqual(sent.at(-1), { kind: 'select', index: 0 }, 'a fresh Enter after the guard chooses on its release');
});

test('"another way": shown only when offered, armed like the chooser, trusted input only; it says whether always', () => {
  const { doc, ids, fire } = fakeDocument();
  const sent = [];
  const clock = { t: 0, now: () => clock.t };
  const view = prompt.createPromptView(doc, { postMessage: (m) => sent.push(m) }, clock);
  assert.equal(ids['another-way'].textContent, prompt.ANOTHER_WAY_TEXT);
  const site = { origin: 'https://example.com', rpId: 'example.com' };
  view.render({ site, status: 'pin', anotherWay: false });
  assert.equal(ids.another.hidden, true);
  view.render({ site, status: 'insert-key', anotherWay: true });
  assert.equal(ids.another.hidden, false);
  assert.equal(doc.documentElement.dataset.another, 'waiting');
  const button = ids['another-way'];
  const key = (type, k, extra = {}) => fire(doc, type, { key: k, isTrusted: true, target: button, ...extra });
  fire(button, 'pointerdown', { isTrusted: true, detail: 1 });    // a click meant for the page, as the window popped up
  clock.t = ACTIVATION_DELAY_MS + 1;
  fire(button, 'click', { isTrusted: true, detail: 1 });
  fire(button, 'pointerdown', { isTrusted: false, detail: 1 });   // script
  fire(button, 'click', { isTrusted: false, detail: 1 });
  key('keydown', 'Enter', { repeat: true });                       // held down since before
  key('keyup', 'Enter');
  assert.deepEqual(sent, [], 'nothing handed on');
  fire(button, 'pointerdown', { isTrusted: true, detail: 1 });
  fire(button, 'click', { isTrusted: true, detail: 1 });
  assert.deepEqual(sent, [{ kind: 'another-way', always: false }]);
  ids.always.checked = true;
  key('keydown', ' ');
  key('keyup', ' ');
  assert.deepEqual(sent.at(-1), { kind: 'another-way', always: true });
  view.render({ site, status: 'pin', anotherWay: false });
  fire(button, 'pointerdown', { isTrusted: true, detail: 1 });
  fire(button, 'click', { isTrusted: true, detail: 1 });
  assert.equal(sent.length, 2, 'hidden: no choice');
  assert.equal(doc.documentElement.dataset.another, undefined);
  view.render({ site, status: 'touch', anotherWay: true });
  fire(button, 'pointerdown', { isTrusted: true, detail: 1 });
  fire(button, 'click', { isTrusted: true, detail: 1 });
  assert.equal(sent.length, 2, 'shown again: armed again');
});

test('"Try again" after a failure the user may retry: shown with Close, armed like the chooser, trusted input only', () => {
  const { doc, ids, fire } = fakeDocument();
  const sent = [];
  const clock = { t: 0, now: () => clock.t };
  const view = prompt.createPromptView(doc, { postMessage: (m) => sent.push(m) }, clock);
  const site = { type: 'get', origin: 'https://example.com', rpId: 'example.com' };
  assert.equal(ids.retry.textContent, 'Try again');
  view.render({ site, status: 'error', detail: 'The security key has no credential for this site.', final: true });
  assert.equal(ids.retry.hidden, true, 'a failure that ended the request: Close only');
  view.render({ site, status: 'error', detail: 'The security key has no credential for this site.', retry: true });
  assert.equal(ids.retry.hidden, false);
  assert.equal(ids.close.textContent, 'Close', "Chromium's error sheets say Close beside Try again");
  assert.equal(doc.documentElement.dataset.retry, 'waiting');
  const button = ids.retry;
  const key = (type, k, extra = {}) => fire(doc, type, { key: k, isTrusted: true, target: button, ...extra });
  key('keydown', 'Enter');                                         // held down since the touch that failed
  clock.t = ACTIVATION_DELAY_MS + 1;
  key('keyup', 'Enter');
  fire(button, 'pointerdown', { isTrusted: false, detail: 1 });    // script
  fire(button, 'click', { isTrusted: false, detail: 1 });
  assert.deepEqual(sent, [], 'nothing retried');
  fire(button, 'pointerdown', { isTrusted: true, detail: 1 });
  fire(button, 'click', { isTrusted: true, detail: 1 });
  assert.deepEqual(sent, [{ kind: 'try-again' }]);
  view.render({ site, status: 'processing', retry: false });
  assert.equal(ids.retry.hidden, true);
  assert.equal(ids.close.textContent, 'Cancel');
  assert.equal(doc.documentElement.dataset.retry, undefined);
});

test('a key that is full: the failure offers the Security keys page, which a real click opens as it closes the window', () => {
  const { doc, ids, fire } = fakeDocument();
  const sent = [];
  const opened = [];
  const view = prompt.createPromptView(doc, { postMessage: (m) => sent.push(m) }, { now: () => 0 },
    { openKeysPage: () => opened.push('keys') });
  const site = { type: 'create', origin: 'https://example.com', rpId: 'example.com' };
  view.render({ site, status: 'error', detail: 'The security key already holds a credential registered with this site.', final: true });
  assert.equal(ids['manage-keys'].hidden, true);
  view.render({ site, status: 'error', detail: ERROR_DETAILS.keyStoreFull, final: true });
  assert.equal(ids['manage-keys'].hidden, false);
  fire(ids['manage-keys'], 'click', { isTrusted: false });
  assert.deepEqual([opened, sent], [[], []], 'a script click opens nothing');
  fire(ids['manage-keys'], 'click', { isTrusted: true });
  assert.deepEqual([opened, sent], [['keys'], [{ kind: 'close' }]]);
  view.render({ site, status: 'touch' });
  assert.equal(ids['manage-keys'].hidden, true);
});
