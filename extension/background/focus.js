/*
 * focus.js — the focus rule: whether a tab is the active tab of the focused window. Chromium refuses create()
 * from a tab without the focus, and the bridge holds such a tab's get() until it has it (intake.js,
 * host-queue.js).
 *
 * The fact is the tab's, not document.hasFocus(): a headless Firefox document never has the focus, and a subframe
 * never has it while its top frame does, yet Chromium's own rule ("the page does not have focus") is about the
 * whole tab. Our own security-key window taking the focus does not take it from the browser window focused before
 * it; and the window opened for a tab leaves the focus with that tab whatever the browser recorded last, as
 * Chromium's dialog belongs to its tab: also after an error, when it stays open to say why and the page asks again
 * at once.
 *
 * Pure of browser globals (node tests it): `api` is the WebExtension API (tabs, windows), `prompts` the
 * security-key windows (prompt-window.js).
 */

// How many times a window of ours that began to open during a look at the focus makes the rule look again: each
// look first waits for the windows being opened, so one more is enough unless windows keep opening.
const LOOKS = 3;

export function createFocusRule({ api, prompts }) {
  // The browser window focused last. Kept by hand: Firefox's windows.getLastFocused ignores windowTypes and answers
  // with our popup.
  let lastBrowserWindow = null;
  let lastFocusEvent = null;   // the window the last windows.onFocusChanged named (WINDOW_ID_NONE: none of ours)
  let focusLeftFrom = null;    // while that is WINDOW_ID_NONE: the window that had the focus before

  /** windows.onFocusChanged, and the focused window at start-up. */
  function noteFocusedWindow(windowId) {
    if (windowId === api.windows.WINDOW_ID_NONE && lastFocusEvent !== windowId) focusLeftFrom = lastFocusEvent;
    lastFocusEvent = windowId;
    if (windowId === api.windows.WINDOW_ID_NONE) return;
    api.windows.get(windowId).then((w) => { if (w.type === 'normal' && w.focused) lastBrowserWindow = w.id; }, () => {});
  }

  async function looksFocused(tabId) {
    const tab = await api.tabs.get(tabId);
    if (!tab.active) return false;
    const window = await api.windows.get(tab.windowId);
    if (window.focused === true) return true;
    const focused = await api.windows.getLastFocused();
    // No window has it, and the last to hold it was the tab's window of ours, since closed: a window manager gives
    // it back to the browser window (an event we would see); headless Firefox, to none (WINDOW_ID_NONE, or no event).
    if (focused.focused !== true) {
      const last = lastFocusEvent === api.windows.WINDOW_ID_NONE ? focusLeftFrom : lastFocusEvent;
      return prompts.wasPromptWindowOf(last, tabId) && lastBrowserWindow === tab.windowId;
    }
    return prompts.isPromptWindowOf(focused.id, tabId)
      || (prompts.isPromptWindow(focused.id) && lastBrowserWindow === tab.windowId);
  }

  /**
   * The rule. A window of ours may hold the focus before windows.create has named it (headless Firefox focuses even
   * one opened unfocused, before its answer): unknown, it would count as another application's. So the rule waits
   * until every window of ours being opened has its id, and looks again if one began to open meanwhile.
   */
  async function isTabFocused(tabId) {
    if (!Number.isInteger(tabId) || tabId < 0) return false;
    for (let look = 1; ; look++) {
      await prompts.windowsOpened();
      const focused = await looksFocused(tabId);
      if (focused || !prompts.opening() || look === LOOKS) return focused;
    }
  }

  /** The active tab of the browser window focused last, if it has the focus (a proxied request no page announced). */
  async function focusedTab() {
    if (lastBrowserWindow === null) return null;
    const [tab] = await api.tabs.query({ active: true, windowId: lastBrowserWindow });
    return tab && (await isTabFocused(tab.id)) ? { tabId: tab.id, url: tab.url || '' } : null;
  }

  return { isTabFocused, focusedTab, noteFocusedWindow };
}
