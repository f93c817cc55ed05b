// background/focus.js over the real security-key windows (prompt-window.js, wired to the bridge as main.js wires
// them) and a fake tabs/windows API whose focus the test moves as the browser would.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createFocusRule } from '../background/focus.js';
import { settle, setup, started } from './prompt-bridge.mjs';

const NONE = -1;
const BROWSER_WINDOW = 1;

/** Tabs 1 and 2, both active, each in a browser window of its own; window 1 focused. */
function browserWith(prompts) {
  const windows = new Map([[1, { id: 1, type: 'normal', focused: true }], [2, { id: 2, type: 'normal', focused: false }]]);
  const tabs = new Map([[1, { id: 1, active: true, windowId: 1 }], [2, { id: 2, active: true, windowId: 2 }]]);
  const hooks = { lookingAtWindow: null };   // runs once, in the next windows.get
  const api = {
    windows: {
      WINDOW_ID_NONE: NONE,
      get: async (id) => {
        const hook = hooks.lookingAtWindow;
        hooks.lookingAtWindow = null;
        if (hook) await hook();
        return { ...windows.get(id) };
      },
      getLastFocused: async () => ({ ...([...windows.values()].find((w) => w.focused) || { id: NONE, focused: false }) }),
    },
    tabs: {
      get: async (id) => ({ ...tabs.get(id) }),
      query: async ({ windowId }) => [...tabs.values()].filter((t) => t.windowId === windowId && t.active),
    },
  };
  const rule = createFocusRule({ api, prompts });
  /** The focus moves to window `id` (a popup, if new), with the events the browser sends: NONE first, then it. */
  const focusTo = (id) => {
    for (const w of windows.values()) w.focused = false;
    if (!windows.has(id)) windows.set(id, { id, type: 'popup', focused: false });
    windows.get(id).focused = true;
    rule.noteFocusedWindow(NONE);
    rule.noteFocusedWindow(id);
  };
  return { rule, focusTo, hooks };
}

async function windowOpening(t) {
  const { id } = await started(t, 'get', undefined, { pressed: null });
  t.hostSays({ id, type: 'status', status: 'touch' });
  await settle();
  assert.equal(t.windows.pending.length, 1, 'windows.create has not answered yet');
}

test('a window of ours that takes the focus before windows.create names it keeps its tab\'s focus', async () => {
  const t = setup({ deferWindows: true });
  const b = browserWith(t.prompts);
  b.rule.noteFocusedWindow(BROWSER_WINDOW);
  await settle();
  await windowOpening(t);
  b.focusTo(100);   // headless Firefox: the window is focused, though opened unfocused, before create() answers

  let answer = null;
  const asked = b.rule.isTabFocused(1).then((focused) => { answer = focused; });
  await settle();
  assert.equal(answer, null, 'no answer while the window that holds the focus is unnamed');
  t.windows.pending.shift()();
  await asked;
  assert.equal(answer, true, 'its tab keeps the focus, as the tab of the window it is');
  assert.equal(await b.rule.isTabFocused(2), false, 'and no other tab gets it');
});

test('a window of ours that begins to open while the rule looks makes it look again', async () => {
  const t = setup({ deferWindows: true });
  const b = browserWith(t.prompts);
  b.rule.noteFocusedWindow(BROWSER_WINDOW);
  await settle();
  b.hooks.lookingAtWindow = async () => {
    await windowOpening(t);
    b.focusTo(100);
  };
  let looked = false;
  const asked = b.rule.isTabFocused(1).then((focused) => { looked = true; return focused; });
  for (let i = 0; i < 20 && t.windows.pending.length === 0; i++) await settle();
  await settle();
  assert.equal(looked, false, 'the first look saw a window it could not name: it waits to look again');
  t.windows.pending.shift()();
  assert.equal(await asked, true);
});

test('a window not ours that holds the focus leaves no tab focused, and the answer does not wait', async () => {
  const t = setup({ deferWindows: true });
  const b = browserWith(t.prompts);
  b.rule.noteFocusedWindow(BROWSER_WINDOW);
  await settle();
  b.focusTo(7);
  assert.equal(await b.rule.isTabFocused(1), false);
  assert.equal(t.prompts.opening(), false);
});

test('the active tab of the focused browser window is focused; an inactive tab, a bad id or a background window not', async () => {
  const t = setup();
  const b = browserWith(t.prompts);
  b.rule.noteFocusedWindow(BROWSER_WINDOW);
  await settle();
  assert.equal(await b.rule.isTabFocused(1), true);
  assert.equal(await b.rule.isTabFocused(2), false, 'its window is not focused');
  assert.equal(await b.rule.isTabFocused(-1), false);
  assert.equal(await b.rule.isTabFocused('1'), false);
  assert.deepEqual(await b.rule.focusedTab(), { tabId: 1, url: '' });
});
