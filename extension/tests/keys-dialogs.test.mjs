// keys/dialogs.js: the Security keys page's dialogs that change a key act only on a press that counts: not the second
// click of a double-click that opened them, not a held or repeated key, not a script's click; Cancel always closes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ACTIVATION_DELAY_MS } from '../common/activation-guard.js';
import { createDialogs } from '../keys/dialogs.js';

const DIALOGS = {
  confirm: { dialog: 'confirm', commit: 'confirm-do', cancel: 'confirm-cancel' },
  rename: { dialog: 'rename', commit: 'rename-save', cancel: 'rename-cancel' },
};

/** A stand-in for keys.html: the elements dialogs.js touches, events dispatched by hand; a dialog's close event comes
 *  later (a task in the browsers), when the test says. */
function fakePage() {
  const closes = [];
  const element = (id) => {
    const e = { id, dataset: {}, listeners: {}, open: false };
    e.addEventListener = (type, fn) => { (e.listeners[type] ||= []).push(fn); };
    e.fire = (type, event = {}) => (e.listeners[type] || [])
      .forEach((fn) => fn({ target: e, preventDefault() {}, ...event }));
    e.showModal = () => { e.open = true; };
    e.close = () => { if (e.open) { e.open = false; closes.push(e); } };
    return e;
  };
  const ids = Object.fromEntries(Object.values(DIALOGS).flatMap(Object.values).map((id) => [id, element(id)]));
  const doc = element('document');
  doc.visibilityState = 'visible';
  doc.getElementById = (id) => ids[id];
  const clock = { t: 0, now: () => clock.t };
  const closeEvents = () => closes.splice(0).forEach((d) => d.fire('close'));
  return { doc, ids, clock, closeEvents };
}

const click = (button, extra = {}) => {
  button.fire('pointerdown', { isTrusted: true, detail: 1, ...extra });
  button.fire('click', { isTrusted: true, detail: 1, ...extra });
};

test('the double-click that opened the confirmation never confirms; a click after the guard does, once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { doc, ids, clock } = fakePage();
  const dialogs = createDialogs(doc, clock, DIALOGS);
  const done = [];
  dialogs.open('confirm', () => done.push('deleted'));
  assert.equal(ids.confirm.open, true);
  assert.equal(ids['confirm-do'].dataset.guard, 'waiting');
  clock.t = 120;
  click(ids['confirm-do'], { detail: 2 });                 // the list's "Delete" double-clicked: its second click
  clock.t = ACTIVATION_DELAY_MS + 1;
  click(ids['confirm-do'], { isTrusted: false });          // element.click() or dispatchEvent
  assert.deepEqual(done, []);
  assert.equal(ids.confirm.open, true, 'still asking');
  t.mock.timers.tick(ACTIVATION_DELAY_MS);
  assert.equal(ids['confirm-do'].dataset.guard, 'armed');
  click(ids['confirm-do']);
  assert.deepEqual(done, ['deleted']);
  assert.equal(ids.confirm.open, false);
  assert.equal(ids['confirm-do'].dataset.guard, undefined, 'closed: disarmed');
  click(ids['confirm-do']);
  assert.deepEqual(done, ['deleted'], 'one confirmation, one action');
});

test('keyboard: a held or repeated Enter confirms nothing, nor presses Cancel; a fresh one after the guard does', () => {
  const { doc, ids, clock } = fakePage();
  const dialogs = createDialogs(doc, clock, DIALOGS);
  const done = [];
  const prevented = [];
  const key = (type, target, k, extra = {}) => doc.fire(type, { key: k, isTrusted: true, target,
    preventDefault: () => prevented.push([type, target.id]), ...extra });
  dialogs.open('confirm', () => done.push('reset'));
  // Enter held down on the list's button: the dialog opened with Cancel focused, the key repeats on it.
  for (let i = 0; i < 5; i++) key('keydown', ids['confirm-cancel'], 'Enter', { repeat: true });
  assert.equal(prevented.length, 5, 'no click on Cancel from a repeated key');
  key('keyup', ids['confirm-cancel'], 'Enter');
  key('keydown', ids['confirm-do'], 'Enter');               // Tab, then Enter at once: before the guard
  clock.t = ACTIVATION_DELAY_MS;
  key('keydown', ids['confirm-do'], 'Enter', { repeat: true });
  key('keyup', ids['confirm-do'], 'Enter');
  assert.deepEqual(done, []);
  key('keydown', ids['confirm-cancel'], 'Enter');           // a fresh Enter on Cancel: the browser's click, left alone
  assert.equal(prevented.at(-1)[1], 'confirm-do');
  key('keydown', ids['confirm-do'], ' ');
  key('keyup', ids['confirm-do'], ' ');
  assert.deepEqual(done, ['reset']);
});

test('Cancel, Escape and a dialog closed meanwhile: nothing acts, and each opening is guarded anew', () => {
  const { doc, ids, clock, closeEvents } = fakePage();
  const dialogs = createDialogs(doc, clock, DIALOGS);
  const done = [];
  dialogs.open('rename', () => done.push('first'));
  ids['rename-cancel'].fire('click', { isTrusted: false });   // Cancel changes nothing: it needs no guard
  assert.equal(ids.rename.open, false);
  clock.t = 2000;
  click(ids['rename-save']);
  assert.deepEqual(done, [], 'cancelled: nothing to save');
  dialogs.open('rename', () => done.push('second'));
  closeEvents();                                              // the first closing's event, after the reopening
  click(ids['rename-save']);
  assert.deepEqual(done, [], 'opened again: guarded again');
  clock.t += ACTIVATION_DELAY_MS;
  click(ids['rename-save']);
  assert.deepEqual(done, ['second'], 'the late close event forgot nothing of the dialog open now');
  dialogs.open('rename', () => done.push('third'));
  ids.rename.open = false;                                    // Escape: the browser closes it…
  ids.rename.fire('close');                                   // …and says so
  clock.t += ACTIVATION_DELAY_MS;
  click(ids['rename-save']);
  assert.equal(ids['rename-save'].dataset.guard, undefined);
  dialogs.open('rename', () => done.push('fourth'));
  clock.t += ACTIVATION_DELAY_MS;
  doc.fire('visibilitychange');                               // the tab back on screen: held off again
  click(ids['rename-save']);
  clock.t += ACTIVATION_DELAY_MS;
  click(ids['rename-save']);
  assert.deepEqual(done, ['second', 'fourth']);
});

test('keys.html: the confirmation opens on Cancel, a rename on its first field; every acting button is guarded', () => {
  const html = readFileSync(new URL('../keys/keys.html', import.meta.url), 'utf8');
  const keys = readFileSync(new URL('../keys/keys.js', import.meta.url), 'utf8');
  assert.match(html, /<button id="confirm-cancel" type="button" autofocus>/);
  assert.match(html, /<input id="rename-name"[^>]* autofocus>/);
  assert.match(html, /<input id="finger-name"[^>]* autofocus>/);
  const dialogs = [...html.matchAll(/<dialog id="([^"]+)"[\s\S]*?<\/dialog>/g)];
  assert.equal(dialogs.length, 3);
  for (const [whole, id] of dialogs) {
    const buttons = [...whole.matchAll(/<button id="([^"]+)"/g)].map((m) => m[1]);
    assert.match(keys, new RegExp(`dialog: '${id}', commit: '${buttons[1]}', cancel: '${buttons[0]}'`), id);
  }
});
