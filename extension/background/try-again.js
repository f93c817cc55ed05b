/*
 * try-again.js — "Try again" in the security-key window, after a failure the user can recover from (the key
 * touched holds no credential for the site, already holds one, is PIN-blocked, is full …: the host marks such an
 * error frame `retry`, docs/protocol.md).
 *
 * As Chromium's dialog: its error sheets for these failures hold the page's promise pending
 * (ChromeAuthenticatorRequestDelegate::DoesBlockRequestOnFailure) and offer "Try again", which starts the same
 * request over (AuthenticatorCommonImpl's start-over callback: the same stored request, so the same
 * clientDataJSON, under the timer started with the request, never restarted); "Close" answers the page with the
 * failure's error (OnCancelFromUI → error_awaiting_user_acknowledgement), also when the user cancels a later
 * attempt. The timeout ends it all as a timeout does today: the page gets NotAllowedError and the window says the
 * time ran out. The page learns only its one final answer, never that an attempt failed or was repeated.
 *
 * Such a failure is held when the window is in front of the user for their press in the page (the focus rule of
 * prompt-window.js), also one that came before any window was needed (a key that answers at once); a window opened
 * behind, without the user's action, only says why, and the page gets its error at once.
 *
 * Pure of browser globals (node tests it through router.js). One record per request (its queue entry, which
 * keeps the page's options): {id, entry, error, detail, state: 'held' | 'waiting' | 'running', timer}.
 */
import { NOT_ALLOWED } from '../common/chromium-errors.js';

/** What the window and the popup say when the page's time ran out (the host's words for its own timeout). */
export const TIMED_OUT = 'The operation timed out.';

/**
 * deps:
 *   prompt            → the security-key window: offerRetry(id, request, {name, detail}) → whether it shows it,
 *                       rekey(oldId, newId), waiting(id), ended(id, request, error)
 *   enqueue(entry)    → the entry waits for the host and its tab again (host-queue.js add)
 *   dropQueued(entry) → takes it out of that queue; whether it was there
 *   timedOut(id)      → the running attempt `id` is cancelled at the host and answered as a timeout (in-flight.js)
 *   now(), setTimeout(fn, ms), clearTimeout(handle), log(level, text)
 */
export function createTryAgain(deps) {
  const records = new Map();   // entry → record

  function byId(id) {
    for (const record of records.values()) if (record.id === id) return record;
    return null;
  }

  function forget(record) {
    deps.clearTimeout(record.timer);
    records.delete(record.entry);
  }

  /** The page's answer for a request the user gave up on, or whose time ran out. */
  function answer(record, error, detail) {
    forget(record);
    record.entry.ctx.send({ kind: 'error', rid: record.entry.rid, error }, detail);
  }

  /**
   * The host failed attempt `id` of `entry` with an error the user may retry. Returns true when it is held (the
   * window offers Try again; the page is not answered), false when the page must get `error` now (its frame is
   * gone, its time is up).
   */
  function offer(id, entry, request, error, detail) {
    if (!entry || !entry.ctx.alive || !Number.isFinite(entry.deadline)) return false;
    const left = entry.deadline - deps.now();
    if (left <= 0 || !deps.prompt.offerRetry(id, request, { name: error.name, detail })) return false;
    let record = records.get(entry);
    if (!record) {
      record = { entry, request, timer: deps.setTimeout(() => expire(entry), left) };
      records.set(entry, record);
    }
    Object.assign(record, { id, error, detail, state: 'held' });
    deps.log('debug', `${id} failed; held for the user to try again or close (${error.name})`);
    return true;
  }

  /** The user pressed Try again in the window of held request `id`: the same request goes to the host again. */
  function tryAgain(id) {
    const record = byId(id);
    if (!record || record.state !== 'held') return;
    record.state = 'waiting';
    deps.enqueue(record.entry);
  }

  /** in-flight.js sent `entry` to the host under `id`: a retry's window follows it there. */
  function dispatched(entry, id) {
    const record = records.get(entry);
    if (!record) return;
    deps.prompt.rekey(record.id, id);
    record.id = id;
    record.state = 'running';
  }

  /** A retried attempt of `entry` was taken back into the focus queue (another tab's request took the host): it
   *  waits again, under the same deadline, and its window stays, as after Try again (Chromium's dialog belongs to
   *  its tab and is there again when the user comes back). Whether `entry` is one this file holds. */
  function requeued(entry) {
    const record = records.get(entry);
    if (!record) return false;
    record.state = 'waiting';
    deps.prompt.waiting(record.id);
    return true;
  }

  /** The attempt of `entry` ended for good (a result, an error not held, a cancel): nothing more to hold. */
  function settled(entry) {
    const record = records.get(entry);
    if (record) forget(record);
  }

  /** The error the page gets when the user gives up on request `id` (closes its window), or null when `id` is not
   *  one this file holds: the last failure's, as Chromium answers a cancel after an error sheet. */
  function cancelError(id) {
    const record = byId(id);
    return record ? { error: record.error, detail: record.detail } : null;
  }

  /** The user closed the window of `id` while its failure was shown, or while its retry waited for the host: the
   *  page gets that failure's error. Whether `id` was one this file holds that way. */
  function decline(id) {
    const record = byId(id);
    if (!record || record.state === 'running') return false;
    if (record.state === 'waiting') deps.dropQueued(record.entry);
    answer(record, record.error, record.detail);
    return true;
  }

  /** The page's time ran out: whatever the request is doing, the page gets the timeout's NotAllowedError. */
  function expire(entry) {
    const record = records.get(entry);
    if (!record) return;
    if (record.state === 'running') {
      forget(record);
      deps.timedOut(record.id);
      return;
    }
    if (record.state === 'waiting') deps.dropQueued(entry);
    deps.prompt.ended(record.id, record.request, { name: NOT_ALLOWED.name, detail: TIMED_OUT });
    answer(record, NOT_ALLOWED, TIMED_OUT);
  }

  /** Held or waiting requests matching `predicate` (on the entry) are gone without an answer (the page aborted,
   *  navigated, its tab closed): their windows close. Returns their entries. */
  function drop(predicate) {
    const dropped = [];
    for (const record of [...records.values()]) {
      if (record.state === 'running' || !predicate(record.entry)) continue;
      if (record.state === 'waiting') deps.dropQueued(record.entry);
      forget(record);
      deps.prompt.ended(record.id, record.request, null);
      dropped.push(record.entry);
    }
    return dropped;
  }

  /** The tab has a request the user may still try again: a second one is refused, as while one runs. */
  function hasTab(tabId) {
    return [...records.values()].some((record) => record.state !== 'running' && record.entry.tabId === tabId);
  }

  return { offer, tryAgain, dispatched, requeued, settled, cancelError, decline, drop, hasTab, heldCount: () => records.size };
}
