/*
 * in-flight.js — requests at the host: each gets a host id (r<seq>-t<tab>-f<frame>-p<page>, "-proxy" on
 * Chromium's proxy path), a watchdog, and its host frames routed back: statuses to the security-key window
 * (prompt-window.js), the one result or error to its requester. Owns the native port (host-port.js): a lost
 * host fails what it had, or sends it to the browser's own WebAuthn if it never answered.
 *
 * Pure of browser globals (node tests it through router.js).
 */
import { NOT_ALLOWED } from '../common/chromium-errors.js';
import { REQUEST, REPLY, isPlainObject } from '../common/protocol.js';
import { createHostPort } from './host-port.js';
import { holdLimit } from './host-queue.js';
import { TIMED_OUT } from './try-again.js';

// The host owns the real timeout (publicKey.timeout clamped by the shared policy, host-queue.js's holdLimit); the
// watchdog only makes sure a page promise settles if the host never answers.
const WATCHDOG_GRACE_MS = 30000;
const HOST_STOPPED = 'The webauthn-bridge host stopped unexpectedly.';

/** How long the background waits for the host before it gives up on a request. */
export function watchdogDelay(options) {
  return holdLimit(options) + WATCHDOG_GRACE_MS;
}

/** Host request ids: unique per (tab, frame, page) and over the background's lifetime. */
export function makeHostId(tabId, frameId, pageId, seq) {
  return `r${seq}-t${tabId}-f${frameId}-p${pageId}`;
}

/** The rp.id a request names (create: options.rp.id, get: options.rpId), for the security-key window only:
 *  the host checks it against the trusted origin before it sends any status, so once shown it is trusted. */
export function requestedRpId(type, options) {
  if (!isPlainObject(options)) return '';
  const value = type === 'create' ? (isPlainObject(options.rp) ? options.rp.id : undefined) : options.rpId;
  return typeof value === 'string' ? value : '';
}

/**
 * deps: connectNative, disconnectError, setIndicator (host-port.js), setTimeout/clearTimeout, now, log,
 * prompt (router.js's createBridge has them), queue() → the focus queue (host-queue.js), told when the
 * host is free again, and tryAgain() → the failures held for the user to try again (try-again.js).
 */
export function createInFlight(deps) {
  const log = deps.log;
  const prompt = deps.prompt;
  const requests = new Map();  // host id → {ctx, rid, tabId, frameId, since, rpId, watchdog}
  let seq = 0;
  // The native port's own deps (connectNative, disconnectError, setIndicator, timers, clock, log) are ours.
  const host = createHostPort({ ...deps, onFrame: hostFrame, onLost: hostLost });
  const queue = { free: (id) => deps.queue().free(id), cancelling: (id) => deps.queue().cancelling(id), drop: (match) => deps.queue().drop(match) };
  const tryAgain = () => deps.tryAgain();

  /** The host went away: requests it had fail, or go to the browser's own WebAuthn if it never answered. */
  function hostLost(verdict) {
    const answer = (ctx, rid) => {
      if (verdict.fallback) ctx.send({ kind: 'fallback', rid, reason: verdict.reason });
      else ctx.send({ kind: 'error', rid, error: { name: 'NotAllowedError', message: HOST_STOPPED } });
    };
    for (const [id, req] of requests) {
      forget(id);
      answer(req.ctx, req.rid);
    }
    // Requests still waiting for their tab never reached the host, but they would reach this same host.
    for (const entry of queue.drop(() => true)) answer(entry.ctx, entry.rid);
    queue.free(null);
  }

  /** A host frame about a request (host-port.js keeps the answers to its own `info`). */
  function hostFrame(frame) {
    if (frame.id === null || frame.id === undefined) {
      log('warn', `host error without id: ${frame.error && frame.error.name}`);
      return;
    }
    const final = frame.type === REPLY.result || frame.type === REPLY.error;
    const req = requests.get(frame.id);
    if (!req) {
      // Cancelled or unknown: its late frames are dropped, but its last one says the host is free again.
      if (final) queue.free(frame.id);
      return;
    }
    if (frame.type === REPLY.status) {
      // The user's business, not the page's: shown in the security-key window only.
      prompt.status(frame.id, promptRequest(req), {
        status: String(frame.status || ''),
        detail: typeof frame.detail === 'string' ? frame.detail : '',
        accounts: Array.isArray(frame.accounts) ? frame.accounts : null,
        attemptsLeft: Number.isInteger(frame.attemptsLeft) && frame.attemptsLeft >= 0 ? frame.attemptsLeft : null,
      });
    } else if (frame.type === REPLY.result) {
      forget(frame.id);
      req.ctx.send({ kind: 'result', rid: req.rid, credential: frame.credential });
    } else if (frame.type === REPLY.error) {
      const error = isPlainObject(frame.error) ? frame.error : {};
      const name = String(error.name || 'NotAllowedError');
      // `detail` (top level, docs/protocol.md) is the precise reason: for the user's window and the popup's list,
      // never the page.
      const detail = typeof frame.detail === 'string' ? frame.detail : '';
      const pageError = { name, message: String(error.message || '') };
      // A failure the user may try again (`retry`) waits in the window for Try again or Close, the page unanswered.
      if (frame.retry === true && tryAgain().offer(frame.id, req.entry, promptRequest(req), pageError, detail)) {
        release(frame.id);
      } else {
        forget(frame.id, { name, detail });
        req.ctx.send({ kind: 'error', rid: req.rid, error: pageError }, detail);
      }
    }
    if (final) queue.free(frame.id);
  }

  /** What the security-key window may show about a request: all from the bridge's records. */
  function promptRequest(req) {
    return { type: req.type, tabId: req.tabId, origin: req.ctx.trusted.origin, topOrigin: req.ctx.trusted.topOrigin || '',
      rpId: req.rpId, userInputAt: req.userInputAt, canHandOff: !req.ctx.proxied || Boolean(req.ctx.page) };
  }

  /** The host is done with attempt `id`; returns its request. */
  function release(id) {
    const req = requests.get(id);
    if (!req) return null;
    if (req.watchdog !== undefined) deps.clearTimeout(req.watchdog);
    requests.delete(id);
    return req;
  }

  /** The request is over (answered, cancelled, timed out or lost): `error` ({name, detail}) when it failed.
   *  `requeued`: it only went back to the focus queue, to be sent again. */
  function forget(id, error = null, requeued = false) {
    const req = release(id);
    if (!req) return;
    // A retried attempt keeps its window while it waits again (try-again.js); any other attempt's window closes.
    if (requeued && tryAgain().requeued(req.entry)) return;
    if (!requeued) tryAgain().settled(req.entry);
    prompt.ended(id, promptRequest(req), error);
  }

  /** The page's time ran out during a retried attempt (whose host clock started anew): it ends as a timeout. */
  function timedOut(id) {
    const req = requests.get(id);
    if (!req) return;
    forget(id, { name: NOT_ALLOWED.name, detail: TIMED_OUT });
    host.send({ id, type: REQUEST.cancel });
    queue.cancelling(id);
    req.ctx.send({ kind: 'error', rid: req.rid, error: NOT_ALLOWED }, TIMED_OUT);
  }

  function cancel(id, req, { requeued = false } = {}) {
    forget(id, null, requeued);
    host.send({ id, type: REQUEST.cancel });
    queue.cancelling(id);
    log('debug', `cancelled ${id} (tab ${req.tabId} frame ${req.frameId})`);
  }

  /** host-queue.js's turn for `entry`: the host frame goes out; returns its id, or null if it could not. */
  function dispatch(entry) {
    const { ctx, rid, type, caller } = entry;
    if (!ctx.alive) return null;
    if (!host.connect()) {
      tryAgain().settled(entry);
      ctx.send({ kind: 'fallback', rid, reason: host.state().reason || 'host-failed' });
      return null;
    }
    // The page's time, as the host counts it for the first attempt; a retry keeps it (try-again.js).
    if (entry.deadline === undefined) entry.deadline = deps.now() + holdLimit(entry.options);
    // The path that served shows in the host log: proxied requests' ids end in "-proxy".
    const id = makeHostId(ctx.tabId, ctx.frameId, ctx.pageId, ++seq) + (ctx.proxied ? '-proxy' : '');
    const frame = { id, type, origin: caller.origin };
    if (caller.crossOrigin) {
      frame.topOrigin = caller.topOrigin;
      frame.crossOrigin = true;
    }
    frame.options = entry.options;
    const req = { ctx, rid, type, entry, tabId: ctx.tabId, frameId: ctx.frameId, since: deps.now(), rpId: requestedRpId(type, entry.options),
      userInputAt: caller.userInputAt ?? null };
    requests.set(id, req);
    tryAgain().dispatched(entry, id);
    req.watchdog = deps.setTimeout(() => {
      if (requests.get(id) !== req) return;
      cancel(id, req);
      ctx.send({ kind: 'error', rid, error: NOT_ALLOWED }, 'The host did not answer in time');
    }, watchdogDelay(entry.options));
    if (!host.send(frame)) {
      forget(id);
      ctx.send({ kind: 'fallback', rid, reason: 'host-failed' });
      return null;
    }
    return id;
  }

  /** The request of `ctx` with page id `rid`, as [host id, request], or [null, null]. */
  function find(ctx, rid) {
    for (const [id, req] of requests) if (req.ctx === ctx && req.rid === rid) return [id, req];
    return [null, null];
  }

  return { host, requests, dispatch, cancel, find, timedOut };
}
