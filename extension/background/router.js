/*
 * router.js — the request path: from a requester (requesters.js) through admission, the per-site switch and the
 * focus queue (host-queue.js) to the host (host-port.js), and the host's answers back to the right tab+frame.
 *
 * It owns: host request ids and their routing back, cancel on abort/close/navigation/port loss, and the
 * fallback decision when the host is unreachable; intake.js decides what reaches the queue. Requests Chromium
 * proxied (proxy.js) enter through serveProxied() and share the queue, the focus rule and the security-key
 * window with the page's. It does not know about pages, DOM or badges: those are callbacks in `deps`.
 */
import { ABORTED, NOT_ALLOWED, PENDING } from '../common/chromium-errors.js';
import { ANOTHER_WAY } from '../common/fallback-reasons.js';
import { REQUEST, isPlainObject } from '../common/protocol.js';
import { entryFor } from './history.js';
import { createHostQueue } from './host-queue.js';
import { createInFlight } from './in-flight.js';
import { createIntake } from './intake.js';
import { PROXIED_RID, createRequesters } from './requesters.js';
import { createTryAgain } from './try-again.js';

export const PORT_NAME = 'webauthn-bridge';


/**
 * The stateful part. deps:
 *   connectNative(), disconnectError(port), setIndicator(state)  → the native port (host-port.js)
 *   loadSiteList()           → Promise<string[]> of per-site switch lines
 *   setTimeout/clearTimeout, now()
 *   log(level, text)         → never passed secrets
 *   prompt                   → the security-key window (background/prompt-window.js): status(id, request,
 *                              frame), ended(id, request, error), offerRetry, waiting and rekey (try-again.js); status
 *                              frames go there, never to a page
 *   frameTree(tabId)         → Promise of webNavigation.getAllFrames (admission.js checks the ancestors)
 *   isTabFocused(tabId)      → Promise<boolean>: the tab is active in the focused window (host-queue.js)
 *   proxy                    → optional, Chromium's webAuthenticationProxy path (background/proxy.js):
 *                              serves(), announce(record) and isAttached(); while it serves, an admitted page
 *                              request is announced (the proxy attached for it) and answered `fallback`, so the
 *                              page calls the browser's own create/get, which Chromium proxies back here
 *                              (serveProxied)
 *   history                  → optional, the popup's last requests (background/history.js): record(entry)
 *   addSite(origin)          → optional, puts an origin on the per-site list (the user's "always" in the window)
 */
export function createBridge(deps) {
  const log = deps.log || (() => {});
  const prompt = deps.prompt || { status() {}, ended() {}, offerRetry: () => false, waiting() {}, rekey() {} };
  const tryAgain = createTryAgain({
    prompt,
    enqueue: (entry) => queue.add(entry),
    dropQueued: (entry) => queue.drop((e) => e === entry).length > 0,
    timedOut: (id) => flight.timedOut(id),
    now: deps.now, setTimeout: deps.setTimeout, clearTimeout: deps.clearTimeout, log,
  });
  const flight = createInFlight({ ...deps, log, prompt, queue: () => queue, tryAgain: () => tryAgain });
  const { host, requests, cancel } = flight;
  const queue = createHostQueue({
    isTabFocused: (tabId) => deps.isTabFocused(tabId),
    send: (entry) => flight.dispatch(entry),
    preempt: (id, entry) => {
      const req = requests.get(id);
      if (req) cancel(id, req, { requeued: true });
      log('debug', `${id} (tab ${entry.tabId}) waits again: a focused tab asked`);
    },
    expired: (entry) => entry.ctx.send({ kind: 'error', rid: entry.rid, error: NOT_ALLOWED }),
    setTimeout: deps.setTimeout,
    clearTimeout: deps.clearTimeout,
  });
  const requesters = createRequesters({
    now: deps.now,
    nextPageId: () => ++pageSeq,
    request: (ctx, message) => intake.request(ctx, message).catch((error) => log('error', `request failed: ${error && error.message}`)),
    cancel: pageCancelled,
    capabilities,
    proxyAttached: () => Boolean(deps.proxy && deps.proxy.isAttached()),
    gone: requesterGone,
    answered,
    belowDone: (ctx, rid) => { if (deps.proxy && deps.proxy.returned) deps.proxy.returned(ctx, rid); },
    interrupted: (ctx, rid) => { if (deps.proxy && deps.proxy.heard) deps.proxy.heard(ctx, rid); },
    whenDetached: (fn) => (deps.proxy && deps.proxy.whenDetached ? deps.proxy.whenDetached(fn) : fn()),
  });
  /** The host's inbound frame limit as its `info` says (undefined before it said): request-size.js's. */
  const inboundFrameBytes = () => (host.info() || {}).maxInboundFrameBytes;
  const intake = createIntake({ ...deps, log, enqueue, inboundFrameBytes });
  let pageSeq = 0;

  /** A final answer went out to a requester: the popup lists it (trusted origin, type, outcome, the reason). */
  function answered(ctx, type, message, reason) {
    if (!deps.history) return;
    const trusted = ctx.trusted || {};
    deps.history.record(entryFor({ time: deps.now(), type, origin: trusted.origin, topOrigin: trusted.topOrigin, message, reason }));
  }

  /** One request per tab; it waits in host-queue.js for the host and its tab's focus. */
  function enqueue(entry) {
    const { ctx, rid, tabId } = entry;
    if (queue.hasTab(tabId) || tryAgain.hasTab(tabId) || [...requests.values()].some((req) => req.tabId === tabId)) {
      ctx.send({ kind: 'error', rid, error: PENDING });
    } else if (!host.connect()) {
      ctx.send({ kind: 'fallback', rid, reason: host.state().reason || 'host-failed' });
    } else {
      queue.add(entry);
    }
  }

  /** The page aborted `rid`: at the host, in the queue, or before it got that far. */
  function pageCancelled(ctx, rid) {
    const [id, req] = flight.find(ctx, rid);
    if (id) return cancel(id, req);
    if (tryAgain.drop((e) => e.ctx === ctx && e.rid === rid).length > 0) return;
    if (queue.drop((e) => e.ctx === ctx && e.rid === rid).length === 0 && ctx.cancelled.size < 16) ctx.cancelled.add(rid);
  }

  /** getClientCapabilities(): the host's, while it is connected; null sends the page to the browser's own. */
  function capabilities() {
    const connected = host.state().state === 'connected';
    const info = host.info();
    const caps = connected && info && isPlainObject(info.capabilities) ? info.capabilities : null;
    return connected ? (caps || {}) : null;
  }

  /** The requester went away (frame closed, or Chromium cancelled a proxied request): nothing to answer. */
  function requesterGone(ctx) {
    ctx.alive = false;
    if (deps.proxy && deps.proxy.returned) deps.proxy.returned(ctx, null);
    tryAgain.drop((e) => e.ctx === ctx);
    queue.drop((e) => e.ctx === ctx);
    for (const [id, req] of requests) if (req.ctx === ctx) cancel(id, req);
  }

  /**
   * A request Chromium proxied (background/proxy.js), attributed to its tab and frame. `send` gets the one
   * final answer (result, error, or fallback when the host is gone). Returns the handle for proxiedGone().
   */
  function serveProxied(fields) {
    const { type, options, origin, crossOrigin, topOrigin, tabId, frameId, userInputAt = null } = fields;
    const ctx = requesters.proxied(fields);
    const caller = crossOrigin ? { origin, topOrigin, crossOrigin: true, userInputAt } : { origin, crossOrigin: false, userInputAt };
    enqueue({ ctx, rid: PROXIED_RID, type, tabId, frameId, options, caller });
    return ctx;
  }

  /** Proxied requests whose page is gone (tab closed, navigated): Chromium is told, as its own would abort. */
  function abandoned(ctxs) {
    for (const ctx of ctxs) {
      if (ctx.proxied) ctx.send({ kind: 'error', rid: PROXIED_RID, error: ABORTED });
    }
  }

  /** The user chose an account in the security-key window (never a frame: frames cannot choose). */
  function select(id, index) {
    if (requests.has(id) && Number.isInteger(index) && index >= 0) host.send({ id, type: REQUEST.select, index });
  }

  /** The user closed the security-key window: cancel, and tell the page what Chromium says when its dialog is
   *  cancelled (NOT_ALLOWED, as the host says for every NotAllowedError), or, after a failure the window offered to
   *  try again, that failure's error (try-again.js). */
  function userCancelled(id) {
    if (tryAgain.decline(id)) return;
    const req = requests.get(id);
    if (!req) return;
    const failed = tryAgain.cancelError(id);
    cancel(id, req);
    if (failed) req.ctx.send({ kind: 'error', rid: req.rid, error: failed.error }, failed.detail);
    else req.ctx.send({ kind: 'error', rid: req.rid, error: NOT_ALLOWED }, 'The security-key window was closed');
  }

  /**
   * The user chose another way in the security-key window: the host stops (cancel, its window closes), and the page
   * calls what was below the bridge with this very request (`fallback`, reason ANOTHER_WAY). A request Chromium
   * proxied goes back by proxy.js (the page that announced it calls Chromium's own again, the proxy detached
   * meanwhile); one no page announced cannot. With `always`, the site's later requests go there at once (the
   * per-site list).
   */
  function anotherWay(id, { always = false } = {}) {
    const req = requests.get(id);
    if (!req || (req.ctx.proxied && !req.ctx.page)) return;
    cancel(id, req);
    const origin = req.ctx.trusted.origin;
    if (always && origin) {
      // Listed at once for the next request, which may come before storage says so; then kept for good.
      intake.siteListed(origin);
      if (deps.addSite) Promise.resolve(deps.addSite(origin)).catch((error) => log('error', `cannot list the site: ${error && error.message}`));
    }
    req.ctx.send({ kind: 'fallback', rid: req.rid, reason: ANOTHER_WAY });
    log('debug', `${id} handed below the bridge by the user${always ? ', and its site from now on' : ''}`);
  }

  function tabClosed(tabId) {
    const gone = [...tryAgain.drop((e) => e.tabId === tabId), ...queue.drop((e) => e.tabId === tabId)].map((e) => e.ctx);
    for (const [id, req] of requests) if (req.tabId === tabId) { cancel(id, req); gone.push(req.ctx); }
    abandoned(gone);
  }

  /** A tab was activated or a window gained or lost focus: a held request may go now. */
  function focusChanged() {
    queue.pump();
  }

  /**
   * A cross-document navigation committed in tab/frame at `timeStamp`. Requests from documents that
   * connected before it are from the page being left; frame 0 takes all its subframes with it.
   */
  function frameNavigated(tabId, frameId, timeStamp) {
    const leaving = (e) => e.tabId === tabId && (frameId === 0 || e.frameId === frameId) && e.ctx.connectedAt <= timeStamp;
    const gone = [...tryAgain.drop(leaving), ...queue.drop(leaving)].map((e) => e.ctx);
    for (const [id, req] of requests) {
      if (req.tabId !== tabId || (frameId !== 0 && req.frameId !== frameId)) continue;
      if (req.ctx.connectedAt <= timeStamp) { cancel(id, req); gone.push(req.ctx); }
    }
    abandoned(gone);
  }

  /** What the options page and the popup show: connection state, the host's whole `info` answer (versions,
   *  keys, log), the last requests. */
  function status() {
    const info = host.info();
    return { ...host.state(), info: info ? { ...info } : null, pending: requests.size + queue.waitingCount() + tryAgain.heldCount(),
      proxy: deps.proxy && deps.proxy.status ? deps.proxy.status() : null,
      history: deps.history ? deps.history.list() : [] };
  }

  return {
    start: host.connect, attachFrame: requesters.attachFrame, serveProxied, proxiedGone: requesterGone, inboundFrameBytes, select,
    userCancelled, anotherWay,
    tryAgain: (id) => tryAgain.tryAgain(id),
    tabClosed, frameNavigated, focusChanged, sitesChanged: intake.sitesChanged, status, refreshInfo: host.refreshInfo,
    pendingCount: () => requests.size, waitingCount: () => queue.waitingCount(),
  };
}
