/*
 * host-queue.js — which admitted request the host serves next. The host runs one ceremony at a time, and a
 * ceremony may open a desktop-wide PIN dialog or wait for a touch, so a request is sent only while its tab is
 * the active tab of the focused window — Chromium shows its WebAuthn dialog inside the tab, where it is seen
 * only when the user is there. A request from any other tab waits here: no PIN prompt, no touch, no key held.
 *
 *   - held → sent when the host is free and its tab is focused (first come, first served among those);
 *   - a focused tab's request never waits behind one whose tab has lost focus: that one is cancelled at the
 *     host and held again, to be sent anew when its tab is focused;
 *   - the host is free again when it answers the request it was sent (also after a cancel), or a grace period
 *     after a cancel it never answered, or when the native port drops;
 *   - a request held past its publicKey.timeout (clamped as the host clamps it) fails as Chromium's would.
 *
 * Pure: the tab's focus comes from deps.isTabFocused (tabs/windows API in main.js), sending and
 * cancelling from router.js. It never looks at a request's contents.
 */
import { effectiveTimeout } from '../common/protocol.js';

export const CANCEL_GRACE_MS = 10000;

/** How long a request may wait for its tab: publicKey.timeout under the host's own clamp, so a request fails
 *  after the same time whether it waited here or ran at the host. */
export function holdLimit(options) {
  return effectiveTimeout(options);
}

/**
 * deps:
 *   isTabFocused(tabId)  → Promise<boolean>: the tab is active in the focused window
 *   send(entry)          → the host id the entry was sent under, or null if it could not be sent
 *   preempt(id, entry)   → cancel that host request (the entry goes back to waiting)
 *   expired(entry)       → answer the page: it waited past its timeout
 *   setTimeout/clearTimeout
 * An entry is {tabId, options, …}: whatever router.js needs to send it; this file reads tabId and options.
 */
export function createHostQueue(deps) {
  const waiting = [];
  let busy = null;   // {id, entry, graceTimer}: the request the host is running or has been told to cancel
  let pumping = false;
  let again = false;

  function hold(entry, front = false) {
    if (front) waiting.unshift(entry);
    else waiting.push(entry);
    if (entry.holdTimer === undefined) {
      entry.holdTimer = deps.setTimeout(() => {
        entry.holdTimer = undefined;
        if (remove(entry)) deps.expired(entry);
      }, holdLimit(entry.options));
    }
  }

  function remove(entry) {
    const i = waiting.indexOf(entry);
    if (i < 0) return false;
    waiting.splice(i, 1);
    return true;
  }

  function stopHoldTimer(entry) {
    if (entry.holdTimer !== undefined) deps.clearTimeout(entry.holdTimer);
    entry.holdTimer = undefined;
  }

  /** A newly admitted request. */
  function add(entry) {
    hold(entry);
    pump();
  }

  /** Drops held entries matching `predicate` (page aborted, document or tab gone); returns them. */
  function drop(predicate) {
    const dropped = waiting.filter(predicate);
    for (const entry of dropped) {
      remove(entry);
      stopHoldTimer(entry);
    }
    return dropped;
  }

  function hasTab(tabId) {
    return waiting.some((e) => e.tabId === tabId) || Boolean(busy && !busy.cancelling && busy.entry.tabId === tabId);
  }

  /** router.js sent `cancel` for host id `id`: the host stays busy until it answers, or the grace ends. */
  function cancelling(id) {
    if (!busy || busy.id !== id || busy.cancelling) return;
    busy.cancelling = true;
    busy.graceTimer = deps.setTimeout(() => free(id), CANCEL_GRACE_MS);
  }

  /** The host's final frame (result or error) for `id`, or the port dropped (id null: whatever it ran). */
  function free(id) {
    if (!busy || (id !== null && busy.id !== id)) return;
    if (busy.graceTimer !== undefined) deps.clearTimeout(busy.graceTimer);
    busy = null;
    pump();
  }

  async function focusOf(tabIds) {
    const answers = await Promise.all(tabIds.map((t) => Promise.resolve(deps.isTabFocused(t)).catch(() => false)));
    return new Map(tabIds.map((t, i) => [t, answers[i] === true]));
  }

  /** Re-evaluates who goes next; called on every change (new request, host free, focus or tab change). */
  async function pump() {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      for (;;) {
        again = false;
        if (waiting.length === 0) return;
        const tabs = [...new Set([...waiting.map((e) => e.tabId), ...(busy ? [busy.entry.tabId] : [])])];
        const focused = await focusOf(tabs);
        if (again) continue; // something changed while the browser answered: look again
        const next = waiting.find((e) => focused.get(e.tabId));
        if (!next) return;
        if (busy) {
          if (!busy.cancelling && !focused.get(busy.entry.tabId)) preempt();
          return; // the host answers the cancel, then free() pumps again
        }
        remove(next);
        stopHoldTimer(next);
        const id = deps.send(next);
        if (id !== null) {
          busy = { id, entry: next, cancelling: false, graceTimer: undefined };
          return;
        }
      }
    } finally {
      pumping = false;
      if (again) pump();
    }
  }

  /** The host's request is from a tab that lost focus while a focused tab waits: cancel it, hold it again. */
  function preempt() {
    const { id, entry } = busy;
    cancelling(id);
    hold(entry, true);
    deps.preempt(id, entry);
  }

  return {
    add, drop, hasTab, cancelling, free, pump,
    waitingCount: () => waiting.length,
    busyId: () => (busy ? busy.id : null),
  };
}
