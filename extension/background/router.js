/*
 * router.js — the background's logic, free of browser globals so node can test it.
 *
 * Loaded by background.js: through importScripts() in Chromium's (classic) service worker, and as the first
 * entry of `background.scripts` in Firefox's background page. Exposes `WebAuthnBridgeRouter` on the
 * background's global (never visible to pages), or module.exports under node.
 *
 * It owns: the one native port (opened at start-up, reopened with backoff), trusted origins from sender
 * records, host request ids and their routing back to a tab+frame, cancel on abort/close/navigation/port
 * loss, the fallback decision when the host is unreachable, and the per-site switch (patterns: site-list.js).
 * Requests Chromium proxied (proxy.js) enter through serveProxied() and share the queue, the focus rule and the
 * security-key window with the page's. It does not know about pages, DOM or badges: those are callbacks in `deps`.
 */
(function (root) {
  'use strict';

  const PORT_NAME = 'webauthn-bridge';
  const BACKOFF_MIN_MS = 1000;
  const BACKOFF_MAX_MS = 60000;
  const STABLE_CONNECTION_MS = 60000;
  // The host owns the real timeout (publicKey.timeout as Chromium clamps it, host-queue.js's holdLimit); the
  // watchdog only makes sure a page promise settles if the host never answers.
  const WATCHDOG_GRACE_MS = 30000;
  const TIMED_OUT = 'The operation either timed out or was not allowed.';
  // What Chromium rejects with when the user cancels its dialog (and the host for every NotAllowedError).
  const USER_CANCELLED = 'The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.';

  // admission.js owns how an origin is read from a sender record or a URL.
  const { senderOrigin, urlOrigin } = loaded('./admission.js', 'WebAuthnBridgeAdmission');
  // site-list.js owns the per-site switch's patterns.
  const { parseSitePattern, siteMatches } = loaded('./site-list.js', 'WebAuthnBridgeSiteList');

  /**
   * The requesting document's origin and, for a subframe, the top-level origin — from the browser's sender
   * record only: sender.origin (both browsers under test; "null" for an opaque origin), else sender.url (older
   * Firefox), and sender.tab.url for the top. Returns null for opaque origins (CSP-sandboxed documents,
   * sandboxed frames, about:blank, data:), whose URL names an origin they do not have. What the security-key
   * window and the per-site switch show; the host frame's caller comes from admission.js.
   */
  function originFromSender(sender) {
    if (!sender || typeof sender !== 'object') return null;
    const origin = senderOrigin(sender, false);
    if (!origin) return null;
    const result = { origin };
    if (sender.frameId !== 0 && sender.tab && typeof sender.tab.url === 'string') {
      const top = urlOrigin(sender.tab.url);
      if (top && top !== origin) result.topOrigin = top;
    }
    return result;
  }

  /**
   * What a native-port disconnect means. If the host never answered on that port, it is not installed, not
   * allowed, or died at start-up: pending requests go to the browser's own WebAuthn. If it had answered,
   * it crashed mid-flight: pending requests fail (the user may already have touched the key).
   */
  function classifyDisconnect(message, heardFromHost) {
    const text = String(message || '').toLowerCase();
    if (heardFromHost) return { fallback: false, reason: 'host-exited', detail: message || '' };
    let reason = 'host-failed';
    if (text.includes('not found') || text.includes('no such native application')) reason = 'host-missing';
    else if (text.includes('forbidden')) reason = 'host-forbidden';
    return { fallback: true, reason, detail: message || '' };
  }

  /** 1 s, 2 s, 4 s … capped at 60 s. */
  function backoffDelay(failures) {
    return Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, failures));
  }

  /** How long the background waits for the host before it gives up on a request. */
  function watchdogDelay(options) {
    return loaded('./host-queue.js', 'WebAuthnBridgeHostQueue').holdLimit(options) + WATCHDOG_GRACE_MS;
  }

  /** Host request ids: unique per (tab, frame, page) and over the background's lifetime. */
  function makeHostId(tabId, frameId, pageId, seq) {
    return `r${seq}-t${tabId}-f${frameId}-p${pageId}`;
  }

  /** A helper module: through require() under node, from the background's global in the browsers (loaded
   *  before this file by background.scripts / importScripts). */
  function loaded(path, globalName) {
    return typeof module === 'object' && module && module.exports ? require(path) : root[globalName];
  }

  function isPlainObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  /** The rp.id a request names (create: options.rp.id, get: options.rpId), for the security-key window only:
   *  the host checks it against the trusted origin before it sends any status, so once shown it is trusted. */
  function requestedRpId(type, options) {
    if (!isPlainObject(options)) return '';
    const value = type === 'create' ? (isPlainObject(options.rp) ? options.rp.id : undefined) : options.rpId;
    return typeof value === 'string' ? value : '';
  }

  /**
   * The stateful part. deps:
   *   connectNative()          → a Port-like {postMessage, onMessage, onDisconnect, disconnect}
   *   disconnectError(port)    → the message the browser gave for the drop (port.error / runtime.lastError)
   *   loadSiteList()           → Promise<string[]> of per-site switch lines
   *   setIndicator(state)      → show the host state on the toolbar ({state, reason, detail})
   *   setTimeout/clearTimeout, now()
   *   log(level, text)         → never passed secrets
   *   prompt                   → the security-key window (background/prompt-window.js): status(id, request,
   *                              frame) and ended(id, request, error); status frames go there, never to a page
   *   frameTree(tabId)         → Promise of webNavigation.getAllFrames (admission.js checks the ancestors)
   *   isTabFocused(tabId)      → Promise<boolean>: the tab is active in the focused window (host-queue.js)
   *   proxy                    → optional, Chromium's webAuthenticationProxy path (background/proxy.js):
   *                              isAttached() and announce(record); when attached, an admitted page request is
   *                              announced and answered `fallback`, so the page calls the browser's own
   *                              create/get, which Chromium proxies back here (serveProxied)
   */
  function createBridge(deps) {
    const log = deps.log || (() => {});
    const prompt = deps.prompt || { status() {}, ended() {} };
    const rules = loaded('../common/frame-rules.js', 'WebAuthnBridgeFrameRules');
    const admission = loaded('./admission.js', 'WebAuthnBridgeAdmission');
    const queue = loaded('./host-queue.js', 'WebAuthnBridgeHostQueue').createHostQueue({
      isTabFocused: (tabId) => deps.isTabFocused(tabId),
      send: dispatch,
      preempt: (id, entry) => {
        const req = requests.get(id);
        if (req) cancel(id, req);
        log('debug', `${id} (tab ${entry.tabId}) waits again: a focused tab asked`);
      },
      expired: (entry) => entry.ctx.send({ kind: 'error', rid: entry.rid, error: { name: 'NotAllowedError', message: TIMED_OUT } }),
      setTimeout: deps.setTimeout,
      clearTimeout: deps.clearTimeout,
    });
    let native = null;           // the one native port
    let heard = false;           // got any frame on `native`
    let failures = 0;            // consecutive short-lived connections (drives the backoff)
    let connectedAt = 0;
    let reconnectTimer = null;
    let hostState = { state: 'connecting', reason: '', detail: '' };
    let hostInfo = null;
    let infoSeq = 0;
    let seq = 0;
    let pageSeq = 0;
    let siteList = null;         // cached; refreshed by sitesChanged()
    const requests = new Map();  // host id → {ctx, rid, tabId, frameId}

    function setState(state, reason = '', detail = '') {
      hostState = { state, reason, detail };
      deps.setIndicator(hostState);
    }

    function connect() {
      if (native) return native;
      if (reconnectTimer !== null) { deps.clearTimeout(reconnectTimer); reconnectTimer = null; }
      heard = false;
      connectedAt = deps.now();
      let port;
      try {
        port = deps.connectNative();
      } catch (error) {
        dropped(null, String(error && error.message || error));
        return null;
      }
      native = port;
      port.onMessage.addListener((frame) => hostFrame(port, frame));
      port.onDisconnect.addListener(() => dropped(port, deps.disconnectError(port)));
      // Ask for info at once: it proves the host is there and tells us its capabilities.
      sendNative({ id: `bg-info-${++infoSeq}`, type: 'info' });
      return native;
    }

    function sendNative(frame) {
      if (!native) return false;
      try {
        native.postMessage(frame);
        return true;
      } catch (error) {
        log('warn', `native postMessage failed: ${error && error.message}`);
        return false;
      }
    }

    function dropped(port, message) {
      if (port !== null && port !== native) return;
      native = null;
      const verdict = classifyDisconnect(message, heard);
      log('warn', `native host disconnected (${verdict.reason}): ${verdict.detail}`);
      // A connection that lived a while resets the backoff; a host that keeps dying at once (missing, or
      // crashing right after start-up) is retried less and less often.
      if (deps.now() - connectedAt > STABLE_CONNECTION_MS) failures = 0;
      failures++;
      hostInfo = verdict.fallback ? null : hostInfo;
      setState(verdict.fallback ? 'unavailable' : 'connecting', verdict.reason, verdict.detail);
      for (const [id, req] of requests) {
        forget(id);
        if (verdict.fallback) req.ctx.send({ kind: 'fallback', rid: req.rid, reason: verdict.reason });
        else req.ctx.send({ kind: 'error', rid: req.rid, error: { name: 'NotAllowedError', message: 'The webauthn-bridge host stopped unexpectedly.' } });
      }
      // Requests still waiting for their tab never reached the host, but they would reach this same host.
      for (const entry of queue.drop(() => true)) {
        if (verdict.fallback) entry.ctx.send({ kind: 'fallback', rid: entry.rid, reason: verdict.reason });
        else entry.ctx.send({ kind: 'error', rid: entry.rid, error: { name: 'NotAllowedError', message: 'The webauthn-bridge host stopped unexpectedly.' } });
      }
      queue.free(null);
      reconnectTimer = deps.setTimeout(() => { reconnectTimer = null; connect(); }, backoffDelay(failures - 1));
    }

    function hostFrame(port, frame) {
      if (port !== native || !isPlainObject(frame)) return;
      if (!heard) {
        heard = true;
        setState('connected');
      }
      if (typeof frame.id === 'string' && frame.id.startsWith('bg-info-')) {
        if (frame.type === 'result') {
          hostInfo = isPlainObject(frame.info) ? frame.info : frame;
          setState('connected');
        }
        return;
      }
      if (frame.id === null || frame.id === undefined) {
        log('warn', `host error without id: ${frame.error && frame.error.name}`);
        return;
      }
      const final = frame.type === 'result' || frame.type === 'error';
      const req = requests.get(frame.id);
      if (!req) {
        // Cancelled or unknown: its late frames are dropped, but its last one says the host is free again.
        if (final) queue.free(frame.id);
        return;
      }
      if (frame.type === 'status') {
        // The user's business, not the page's: shown in the security-key window only.
        prompt.status(frame.id, promptRequest(req), {
          status: String(frame.status || ''),
          detail: typeof frame.detail === 'string' ? frame.detail : '',
          accounts: Array.isArray(frame.accounts) ? frame.accounts : null,
        });
      } else if (frame.type === 'result') {
        forget(frame.id);
        req.ctx.send({ kind: 'result', rid: req.rid, credential: frame.credential });
      } else if (frame.type === 'error') {
        const error = isPlainObject(frame.error) ? frame.error : {};
        const name = String(error.name || 'NotAllowedError');
        // `detail` (top level, docs/protocol.md) is the precise reason: for the user's window, never the page.
        forget(frame.id, { name, detail: typeof frame.detail === 'string' ? frame.detail : '' });
        req.ctx.send({ kind: 'error', rid: req.rid, error: { name, message: String(error.message || '') } });
      }
      if (final) queue.free(frame.id);
    }

    /** What the security-key window may show about a request: all from the bridge's records. */
    function promptRequest(req) {
      return { tabId: req.tabId, origin: req.ctx.trusted.origin, topOrigin: req.ctx.trusted.topOrigin || '', rpId: req.rpId };
    }

    /** The request is over (answered, cancelled, timed out or lost): `error` ({name, detail}) when it failed. */
    function forget(id, error = null) {
      const req = requests.get(id);
      if (!req) return;
      if (req.watchdog !== undefined) deps.clearTimeout(req.watchdog);
      requests.delete(id);
      prompt.ended(id, promptRequest(req), error);
    }

    function cancel(id, req) {
      forget(id);
      sendNative({ id, type: 'cancel' });
      queue.cancelling(id);
      log('debug', `cancelled ${id} (tab ${req.tabId} frame ${req.frameId})`);
    }

    async function sitesFor(origin) {
      if (siteList === null) {
        try {
          siteList = await deps.loadSiteList();
        } catch (_) {
          siteList = [];
        }
      }
      return siteMatches(siteList, origin);
    }

    /**
     * A page's request, admitted (admission.js: opaque origin, permissions policy, user activation, ancestors)
     * and, for create, focused (Chromium refuses create from a page without focus), then queued: it reaches
     * the host when the host is free and its tab is focused (host-queue.js).
     */
    async function request(ctx, message) {
      const { rid, type } = message;
      const frames = ctx.frameId === 0 ? null : await Promise.resolve(deps.frameTree(ctx.tabId)).catch(() => null);
      const caller = admission.admit(type, ctx.sender, message.frame, frames, rules);
      if (caller.refuse || caller.fallback) {
        log('warn', `refused ${type} from tab ${ctx.tabId} frame ${ctx.frameId}: ${caller.fallback || caller.refuse.message}`);
        if (caller.refuse) ctx.send({ kind: 'error', rid, error: caller.refuse });
        else ctx.send({ kind: 'fallback', rid, reason: caller.fallback });
        return;
      }
      if (type === 'create' && !(await Promise.resolve(deps.isTabFocused(ctx.tabId)).catch(() => false))) {
        log('warn', `refused create from tab ${ctx.tabId}: the tab does not have focus`);
        ctx.send({ kind: 'error', rid, error: rules.REFUSALS.focus });
        return;
      }
      if (await sitesFor(caller.origin)) {
        ctx.send({ kind: 'fallback', rid, reason: 'site-setting' });
        return;
      }
      if (deps.proxy && deps.proxy.isAttached()) {
        // Chromium serves the page's call from here on, with its own checks, and proxies it back to us: the
        // announcement tells which tab and frame it comes from (the proxy event does not say).
        deps.proxy.announce({ type, origin: caller.origin, options: message.options, tabId: ctx.tabId, frameId: ctx.frameId,
          crossOrigin: caller.crossOrigin === true, topOrigin: caller.topOrigin || '' });
        ctx.send({ kind: 'fallback', rid, reason: 'proxy' });
        return;
      }
      // The page may have aborted while the browser answered.
      if (!ctx.alive || ctx.cancelled.delete(rid)) return;
      if (queue.hasTab(ctx.tabId) || [...requests.values()].some((req) => req.tabId === ctx.tabId)) {
        ctx.send({ kind: 'error', rid, error: { name: 'NotAllowedError', message: 'A request is already pending.' } });
        return;
      }
      if (!connect()) {
        ctx.send({ kind: 'fallback', rid, reason: hostState.reason || 'host-failed' });
        return;
      }
      queue.add({ ctx, rid, type, tabId: ctx.tabId, frameId: ctx.frameId, options: message.options, caller });
    }

    /** host-queue.js's turn for `entry`: the host frame goes out; returns its id, or null if it could not. */
    function dispatch(entry) {
      const { ctx, rid, type, caller } = entry;
      if (!ctx.alive) return null;
      if (!connect()) {
        ctx.send({ kind: 'fallback', rid, reason: hostState.reason || 'host-failed' });
        return null;
      }
      // The path that served shows in the host log: proxied requests' ids end in "-proxy".
      const id = makeHostId(ctx.tabId, ctx.frameId, ctx.pageId, ++seq) + (ctx.proxied ? '-proxy' : '');
      const frame = { id, type, origin: caller.origin };
      if (caller.crossOrigin) {
        frame.topOrigin = caller.topOrigin;
        frame.crossOrigin = true;
      }
      frame.options = entry.options;
      const req = { ctx, rid, tabId: ctx.tabId, frameId: ctx.frameId, since: deps.now(), rpId: requestedRpId(type, entry.options) };
      requests.set(id, req);
      req.watchdog = deps.setTimeout(() => {
        if (requests.get(id) !== req) return;
        cancel(id, req);
        ctx.send({ kind: 'error', rid, error: { name: 'NotAllowedError', message: TIMED_OUT } });
      }, watchdogDelay(entry.options));
      if (!sendNative(frame)) {
        forget(id);
        ctx.send({ kind: 'fallback', rid, reason: 'host-failed' });
        return null;
      }
      return id;
    }

    function findRequest(ctx, rid) {
      for (const [id, req] of requests) if (req.ctx === ctx && req.rid === rid) return [id, req];
      return [null, null];
    }

    function pageMessage(ctx, message) {
      if (!isPlainObject(message) || typeof message.rid !== 'string' || message.rid.length > 64) return;
      switch (message.kind) {
        case 'request':
          if ((message.type === 'create' || message.type === 'get') && isPlainObject(message.options)) {
            request(ctx, message).catch((error) => log('error', `request failed: ${error && error.message}`));
          }
          break;
        case 'cancel': {
          const [id, req] = findRequest(ctx, message.rid);
          if (id) cancel(id, req);
          else if (queue.drop((e) => e.ctx === ctx && e.rid === message.rid).length === 0 && ctx.cancelled.size < 16) ctx.cancelled.add(message.rid);
          break;
        }
        case 'capabilities': {
          const caps = hostState.state === 'connected' && hostInfo && isPlainObject(hostInfo.capabilities) ? hostInfo.capabilities : null;
          ctx.send({ kind: 'capabilities', rid: message.rid, capabilities: hostState.state === 'connected' ? (caps || {}) : null });
          break;
        }
        default:
          break;
      }
    }

    /** A content-script port (one per frame document that made a request). */
    function attachFrame(port) {
      const sender = port.sender || {};
      const ctx = {
        tabId: sender.tab && Number.isInteger(sender.tab.id) ? sender.tab.id : -1,
        frameId: Number.isInteger(sender.frameId) ? sender.frameId : 0,
        pageId: ++pageSeq,
        sender,
        trusted: originFromSender(sender),
        connectedAt: deps.now(),
        alive: true,
        cancelled: new Set(),    // rids cancelled before their request reached the host
        send(message) {
          if (!ctx.alive) return;
          try { port.postMessage(message); } catch (_) { ctx.alive = false; }
        },
      };
      port.onMessage.addListener((message) => pageMessage(ctx, message));
      port.onDisconnect.addListener(() => requesterGone(ctx));
      return ctx;
    }

    /** The requester went away (frame closed, or Chromium cancelled a proxied request): nothing to answer. */
    function requesterGone(ctx) {
      ctx.alive = false;
      queue.drop((e) => e.ctx === ctx);
      for (const [id, req] of requests) if (req.ctx === ctx) cancel(id, req);
    }

    /**
     * A request Chromium proxied (background/proxy.js), attributed to its tab and frame. `send` gets the one
     * final answer (result, error, or fallback when the host is gone). Returns the handle for proxiedGone().
     */
    function serveProxied({ type, options, origin, crossOrigin, topOrigin, tabId, frameId, send }) {
      const ctx = {
        tabId, frameId, pageId: ++pageSeq, sender: null, proxied: true,
        trusted: crossOrigin ? { origin, topOrigin } : { origin },
        connectedAt: deps.now(), alive: true, cancelled: new Set(),
        send(message) {
          if (!ctx.alive) return;
          ctx.alive = false;
          send(message);
        },
      };
      const rid = 'proxy';
      if (queue.hasTab(tabId) || [...requests.values()].some((req) => req.tabId === tabId)) {
        ctx.send({ kind: 'error', rid, error: { name: 'NotAllowedError', message: 'A request is already pending.' } });
      } else if (!connect()) {
        ctx.send({ kind: 'fallback', rid, reason: hostState.reason || 'host-failed' });
      } else {
        const caller = crossOrigin ? { origin, topOrigin, crossOrigin: true } : { origin, crossOrigin: false };
        queue.add({ ctx, rid, type, tabId, frameId, options, caller });
      }
      return ctx;
    }

    /** Proxied requests whose page is gone (tab closed, navigated): Chromium is told, as its own would abort. */
    function abandoned(ctxs) {
      for (const ctx of ctxs) {
        if (ctx.proxied) ctx.send({ kind: 'error', rid: 'proxy', error: { name: 'AbortError', message: 'The operation was aborted.' } });
      }
    }

    /** The user chose an account in the security-key window (never a frame: frames cannot choose). */
    function select(id, index) {
      if (requests.has(id) && Number.isInteger(index) && index >= 0) sendNative({ id, type: 'select', index });
    }

    /** The user closed the security-key window: cancel, and tell the page what Chromium says when its dialog is
     *  cancelled. */
    function userCancelled(id) {
      const req = requests.get(id);
      if (!req) return;
      cancel(id, req);
      req.ctx.send({ kind: 'error', rid: req.rid, error: { name: 'NotAllowedError', message: USER_CANCELLED } });
    }

    function tabClosed(tabId) {
      const gone = queue.drop((e) => e.tabId === tabId).map((e) => e.ctx);
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
      const gone = queue.drop((e) => e.tabId === tabId && (frameId === 0 || e.frameId === frameId) && e.ctx.connectedAt <= timeStamp).map((e) => e.ctx);
      for (const [id, req] of requests) {
        if (req.tabId !== tabId || (frameId !== 0 && req.frameId !== frameId)) continue;
        if (req.ctx.connectedAt <= timeStamp) { cancel(id, req); gone.push(req.ctx); }
      }
      abandoned(gone);
    }

    function sitesChanged(lines) {
      siteList = Array.isArray(lines) ? lines : [];
    }

    /** What the options page shows: connection state and the host's whole `info` answer (versions, keys, log). */
    function status() {
      return { ...hostState, info: hostInfo ? { ...hostInfo } : null, pending: requests.size + queue.waitingCount(),
        proxy: deps.proxy && deps.proxy.status ? deps.proxy.status() : null };
    }

    return {
      start: connect, attachFrame, serveProxied, proxiedGone: requesterGone, select, userCancelled, tabClosed, frameNavigated, focusChanged, sitesChanged, status,
      pendingCount: () => requests.size, waitingCount: () => queue.waitingCount(),
    };
  }

  const api = Object.freeze({
    PORT_NAME, originFromSender, requestedRpId, classifyDisconnect, backoffDelay, watchdogDelay, parseSitePattern, siteMatches, makeHostId,
    createBridge,
  });
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root.WebAuthnBridgeRouter = api;
})(globalThis);
