/*
 * window-rate.js — when a tab's new security-key window may open, and whether it takes the focus.
 *
 * A page must not be able to pop windows up at will (a get() + abort() loop) nor take the focus from whatever the
 * user is doing: a tab's new window opens no sooner than COOLDOWN_MS after its last, unless the user pressed
 * something in the page since (the relay's last trusted press, request.userInputAt); and only such a press gives a
 * window the focus, once. Chromium's own dialog is tab-modal and never takes the focus from another application.
 *
 * Pure (node tests it through prompt-window.js, which asks it before each new window); `now` is the clock.
 */

/** A tab's next new window, without a user's press in between, waits until this long after its last. */
export const COOLDOWN_MS = 10000;
/** A press counts as the user's action for a window opened at most this long after it. */
export const USER_ACTION_MS = 10000;

export function createWindowRate(now) {
  const tabs = new Map();   // tab id → {openedAt, pressUsed}: its last new window, the press that focused one

  /**
   * For a new window of `tabId`: {focused, waitMs}. At once and focused for a press of the user's in the page that no
   * window used yet (the press is used up); otherwise unfocused, after what is left of the tab's cooldown.
   */
  function decide(tabId, userInputAt) {
    const at = now();
    for (const [id, t] of tabs) if (at - t.openedAt > 2 * COOLDOWN_MS) tabs.delete(id);
    const tab = tabs.get(tabId) || { openedAt: -Infinity, pressUsed: null };
    tabs.set(tabId, tab);
    const pressed = Number.isFinite(userInputAt) && userInputAt !== tab.pressUsed && at - userInputAt <= USER_ACTION_MS;
    if (pressed) tab.pressUsed = userInputAt;
    return { focused: pressed, waitMs: pressed ? 0 : tab.openedAt + COOLDOWN_MS - at };
  }

  /** The tab's new window opens now: its cooldown starts. */
  function opened(tabId) {
    const tab = tabs.get(tabId) || { openedAt: -Infinity, pressUsed: null };
    tab.openedAt = now();
    tabs.set(tabId, tab);
  }

  return { decide, opened };
}
