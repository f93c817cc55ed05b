// common/activation-guard.js: which presses of a guarded button count (the security-key window's choices and the
// Security keys page's dialogs; prompt.test.mjs and keys-dialogs.test.mjs drive it through them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVATION_DELAY_MS, acceptsActivation, createActivationGuard } from '../common/activation-guard.js';

test('only trusted input, and none before the control has been on screen for the activation delay', () => {
  const armedAt = 1000 + ACTIVATION_DELAY_MS;
  assert.equal(ACTIVATION_DELAY_MS, 500);
  assert.equal(acceptsActivation({ isTrusted: true }, armedAt, armedAt), true);
  assert.equal(acceptsActivation({ isTrusted: true }, armedAt, armedAt - 1), false, 'too soon: meant for the page');
  assert.equal(acceptsActivation({ isTrusted: false }, armedAt, armedAt + 5000), false,
    'element.click() / dispatchEvent');
  assert.equal(acceptsActivation({}, armedAt, armedAt + 5000), false);
  assert.equal(acceptsActivation({ isTrusted: true }, Infinity, 1e12), false, 'not armed at all');
  assert.equal(acceptsActivation(null, armedAt, armedAt), false);
  assert.equal(acceptsActivation({ isTrusted: true, repeat: true }, armedAt, armedAt + 5000), false,
    'the keyboard repeating a key held down since before the control appeared');
});

function button() {
  const listeners = {};
  return {
    listeners,
    addEventListener: (type, fn) => { (listeners[type] ||= []).push(fn); },
    fire: (type, event) => (listeners[type] || []).forEach((fn) => fn({ preventDefault() {}, ...event })),
  };
}

test('a press and its release both after the guard, by the same means on the same choice, activate once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = { t: 0, now: () => clock.t };
  const marks = [];
  const activated = [];
  const guard = createActivationGuard(clock, {
    mark: (name, state) => marks.push([name, state]),
    onActivate: (c) => activated.push(c),
  });
  const ok = button();
  const other = button();
  guard.listenForPointer(ok, 'ok');
  guard.listenForPointer(other, 'other');
  const trusted = { isTrusted: true, detail: 1 };
  ok.fire('pointerdown', trusted);
  ok.fire('click', trusted);
  assert.deepEqual(activated, [], 'not armed: never shown');
  guard.arm('ok');
  guard.arm('other');
  assert.deepEqual(marks, [['ok', 'waiting'], ['other', 'waiting']]);
  clock.t = ACTIVATION_DELAY_MS - 1;
  ok.fire('pointerdown', trusted);            // the second click of a double-click…
  clock.t = ACTIVATION_DELAY_MS + 50;
  ok.fire('click', trusted);                 // …released after the guard: its press was too soon
  t.mock.timers.tick(ACTIVATION_DELAY_MS);
  assert.deepEqual(marks.slice(2), [['ok', 'armed'], ['other', 'armed']]);
  other.fire('pointerdown', trusted);
  ok.fire('click', trusted);                 // pressed on one, released on another
  ok.fire('pointerdown', trusted);
  ok.fire('click', { isTrusted: true, detail: 0 });   // a click the keyboard made: the key decides
  assert.deepEqual(activated, []);
  ok.fire('pointerdown', trusted);
  ok.fire('click', trusted);
  ok.fire('click', trusted);                 // one press, one activation
  assert.deepEqual(activated, ['ok']);
  guard.disarm('ok');
  assert.deepEqual(marks.at(-1), ['ok', null]);
  ok.fire('pointerdown', trusted);
  ok.fire('click', trusted);
  assert.deepEqual(activated, ['ok'], 'disarmed: gone');
});

test('Enter or Space on the focused choice: a fresh press released after the guard; a repeated key never', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = { t: 0, now: () => clock.t };
  const activated = [];
  const guard = createActivationGuard(clock, { onActivate: (c) => activated.push(c) });
  const doc = button();
  const prevented = [];
  const key = (type, k, extra = {}) => doc.fire(type,
    { key: k, isTrusted: true, focused: 'ok', preventDefault: () => prevented.push(type), ...extra });
  guard.listenForKeys(doc, (event) => event.focused ?? null);
  guard.arm('ok');
  key('keydown', 'Enter');                   // down before the guard, held
  clock.t = ACTIVATION_DELAY_MS;
  for (let i = 0; i < 5; i++) key('keydown', 'Enter', { repeat: true });
  key('keyup', 'Enter');
  key('keydown', ' ', { isTrusted: false });
  key('keyup', ' ', { isTrusted: false });
  key('keydown', 'Enter');
  key('keyup', ' ');                         // another key's release
  assert.deepEqual(activated, []);
  assert.equal(prevented.length, 11, 'no click comes of these keys: the release decides');
  key('keydown', ' ');
  key('keyup', ' ');
  assert.deepEqual(activated, ['ok']);
  key('keydown', 'Enter', { focused: null });
  key('keyup', 'Enter', { focused: null });
  assert.equal(prevented.length, 13, 'no guarded choice focused: the key is left alone');
});
