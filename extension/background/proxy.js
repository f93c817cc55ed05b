/*
 * proxy.js — Chromium's proxy path: chrome.webAuthenticationProxy (Chromium 115+, permission
 * "webAuthenticationProxy"). While attached, Chromium hands every navigator.credentials.create/get of the
 * profile to this extension after its own checks (opaque origins, permissions policy, rp.id against the
 * origin, list caps), with the caller's origin and sameOriginWithAncestors written by Chromium itself, and
 * builds the PublicKeyCredential the page receives from our responseJson.
 *
 * What the proxy event does not say, and how it is found (docs/extension.md, "Chromium's proxy path"):
 *   - the tab and frame: the page's own call still goes through page/interceptor.js → relay → router.js, which
 *     admits it as on the page path (frame rules, focus for create), announces it here (origin, challenge, tab,
 *     frame, top-level origin) and answers `fallback`, so the page calls Chromium's create/get, which Chromium
 *     proxies back: the proxied request is matched to its announcement by (type, origin, challenge);
 *   - a call that was not announced (a page reaching an unpatched navigator.credentials, e.g. an about:blank
 *     frame's), which Chromium proxies only while attached for another request (else its own serves it): served
 *     only as the top-level document of the focused tab, whose origin must be the caller's;
 *     a cross-origin frame's unannounced call is refused (its top-level origin is unknown);
 *   - the focus rule: Chromium proxies create and get from background tabs too; the router's queue holds a
 *     request until its tab is focused, as on the page path.
 * The path serves while the user chose it (storage.local "proxyPath") and the host answers; Chromium's proxy is then
 * attached only while a request needs it, since Chromium refuses every conditional get of the profile while it is
 * (apply). Chromium proxies every request of the profile and hands none to its own UI while attached, so a request
 * that must go there (a site on the per-site list, or the user's "another way") is handed back: completed
 * HANDED_BACK, the proxy detached until the page's new call of Chromium's own settles (handBack below); other tabs'
 * proxied requests, which the detach ends, are called again by their pages once it is attached again (interrupt).
 *
 * Pure of browser globals (node tests it); the browser is in `deps`.
 */
import { NOT_ALLOWED, NO_FOCUS } from '../common/chromium-errors.js';
import { ANOTHER_WAY, CALL_AGAIN, HANDED_BACK, PROXY } from '../common/fallback-reasons.js';
import { effectiveTimeout } from '../common/protocol.js';
import { urlOrigin } from './admission.js';
import { ANNOUNCED_TTL_MS, createAnnouncements } from './proxy-announcements.js';
import * as codec from './proxy-codec.js';
import { tooLarge } from './request-size.js';

/** How long the detach waits for the pages told CALL_AGAIN to say they heard it (a few ms; a page that does not say
 *  gets its call's end, AbortError). */
export const INTERRUPT_WAIT_MS = 2000;
/** How long the proxy stays detached for a handed-back request past its time, if its page never says it settled. */
export const LEND_GRACE_MS = 30000;
const HOST_GONE = { name: 'NotAllowedError', message: 'The webauthn-bridge host is not available.' };


/**
 * deps:
 *   wap              chrome.webAuthenticationProxy (null where the browser has none: Firefox)
 *   bridge           router.js's bridge: serveProxied(fields) → handle, proxiedGone(handle), inboundFrameBytes()
 *   focusedTab()     → Promise<{tabId, url} | null>: the active tab of the focused browser window
 *   now(), log(level, text), setTimeout/clearTimeout (default: the global ones)
 */
export function createProxy(deps) {
  const log = deps.log || (() => {});
  const wap = deps.wap || null;
  let attached = false;
  // Chromium keeps the proxy attached to the extension, not to this worker: a worker started anew may find it
  // attached from before, so the first "not wanted" detaches whatever it finds.
  let maybeAttached = Boolean(wap);
  let probed = false;
  let state = wap ? 'off' : 'unsupported';   // off | attached | detached | taken | unsupported
  let detail = '';
  let wanted = { enabled: false, hostConnected: false };
  // Requests handed back to Chromium's own (the page's {ctx, rid} → its timer): the proxy stays detached meanwhile,
  // since Chromium hands nothing to its own UI while one is attached.
  const lent = new Map();
  const later = deps.setTimeout || ((fn, ms) => setTimeout(fn, ms));
  const cancelLater = deps.clearTimeout || ((handle) => clearTimeout(handle));
  let transition = Promise.resolve();
  const announced = createAnnouncements(deps.now);
  const pending = new Map();     // Chromium requestId → {type, handle | null, cancelled, served: {origin, options, who}}
  // Requests of other tabs whose proxied call the bridge ended to lend the proxy (page → what it was served as): told
  // to call again, and announced anew, once the proxy is attached again.
  const interrupted = new Map();
  const hearing = new Map();      // page → resolve(): an interrupted page has not said it heard yet
  let whileAttached = [];         // fn() to call once the proxy is detached (conditional gets waiting)
  let served = 0;

  /** The proxy path serves: the user chose it, the host answers, and no request is handed back to Chromium's own.
   *  Chromium's proxy is then attached while a request needs it (demanded), and detached otherwise. */
  function serves() {
    return Boolean(wap) && wanted.enabled && wanted.hostConnected && lent.size === 0;
  }

  /** A request needs Chromium's proxy attached: one proxied and not answered, one announced whose call has not come
   *  yet (for ANNOUNCED_TTL_MS at most), or one to be called again. */
  function demanded() {
    return pending.size > 0 || interrupted.size > 0 || announced.needProxy();
  }

  /** New facts ({enabled, hostConnected}, any subset), or none (a request came or went): attaches or detaches to
   *  match. */
  function update(facts = {}) {
    wanted = { ...wanted, ...facts };
    transition = transition.then(apply, apply);
    return transition;
  }

  /**
   * Attached only while a request needs it: while attached, Chromium refuses every conditional get of the profile
   * at once, so neither the browser's own passkey autofill nor a password manager's that races the browser's own
   * could answer one (measured). Its first attach is a probe (attached, then detached), so that another extension
   * holding the proxy shows at once.
   */
  async function apply() {
    if (!wap) return;
    for (let step = 0; step < 2; step++) {
      const want = serves() && (demanded() || !probed);
      if (want && !attached) {
        // A worker started anew may find the proxy attached from before: let go of it first.
        if (maybeAttached) await wap.detach().catch(() => {});
        maybeAttached = false;
        const error = await wap.attach().catch((e) => String(e && e.message || e));
        probed = true;
        if (error) {
          // Another extension (e.g. a remote-desktop one) holds the proxy: the page path serves.
          state = 'taken';
          detail = String(error);
          log('warn', `webAuthenticationProxy.attach failed: ${detail}; the page path serves`);
          giveUpInterrupted();
          return;
        }
        attached = true;
        callAgain();
        continue;
      }
      if (!want && (attached || maybeAttached)) {
        const known = attached;
        attached = false;
        maybeAttached = false;
        if (lent.size > 0) await interrupt();
        await wap.detach().catch((e) => { if (known) log('warn', `webAuthenticationProxy.detach failed: ${e && e.message}`); });
        // Chromium ends every proxied call still pending (measured): none may reach the host after.
        for (const [requestId, entry] of pending) {
          pending.delete(requestId);
          entry.cancelled = true;
          if (entry.handle) deps.bridge.proxiedGone(entry.handle);
        }
      }
      break;
    }
    if (attached || (serves() && state !== 'taken')) {
      state = 'attached';
      detail = '';
    } else if (state !== 'taken' || !wanted.enabled) {
      state = wanted.enabled ? 'detached' : 'off';
      detail = whyDetached();
    }
    if (!attached && (!wanted.enabled || !wanted.hostConnected)) giveUpInterrupted();
    if (!attached) flushWhileAttached();
  }

  /** `fn` once Chromium's proxy is detached: at once if it is (after any attach or detach under way). */
  function whenDetached(fn) {
    whileAttached.push(fn);
    const check = () => { if (!attached) flushWhileAttached(); };
    transition.then(check, check);
  }

  function flushWhileAttached() {
    const waiting = whileAttached;
    whileAttached = [];
    for (const fn of waiting) fn();
  }

  /** Why a wanted proxy is not attached, as things are now ('' when it is simply off): said from the current facts
   *  every time, so the options page never shows an old reason beside a connected host. */
  function whyDetached() {
    if (!wanted.enabled) return '';
    if (!wanted.hostConnected) return 'the host is not connected';
    return lent.size > 0 ? 'a request was handed to Chromium\'s own WebAuthn' : '';
  }

  /**
   * router.js admitted a page's request (intake.js): Chromium will proxy the page's call of its own function back
   * shortly. Resolves true once the proxy is attached for it (the page may call then), false when it cannot be (the
   * page path serves). A conditional create, or a call for a listed site (handBack), needs no proxy: it is only
   * noted, so that a call Chromium proxies anyway (attached for another request) is refused or handed back.
   */
  function announce({ type, origin, options, tabId, frameId, crossOrigin, topOrigin, userInputAt = null, conditional = false,
    page = null, handBack = false }) {
    if (!announced.add({ type, origin, options, tabId, frameId, crossOrigin, topOrigin, userInputAt, conditional, page, handBack })) {
      return Promise.resolve(false);
    }
    if (conditional || handBack) return Promise.resolve(true);
    // Detached again if its call never comes (the page went away before it called).
    later(() => update(), ANNOUNCED_TTL_MS + 1);
    return update().then(() => attached);
  }

  /**
   * The proxy detaches for a request handed back while other tabs' proxied requests wait (in the queue for their
   * tab): `detach()` ends each of their calls, and Chromium tells a page without the focus only that it has none
   * (measured), so a page script could not tell that end from a refusal. So each announced one leaves the router
   * first, its page is told CALL_AGAIN, and the detach waits until the page says it heard (or INTERRUPT_WAIT_MS);
   * the page calls Chromium's own again once the proxy is attached again (callAgain). One no page announced (an
   * about:blank frame's) cannot be called again: the detach ends it.
   */
  async function interrupt() {
    const heard = [];
    for (const [requestId, entry] of pending) {
      const page = entry.served && entry.served.who.page;
      if (!page || entry.cancelled || !page.ctx.alive) continue;
      pending.delete(requestId);
      entry.cancelled = true;
      if (entry.handle) deps.bridge.proxiedGone(entry.handle);
      interrupted.set(page, { type: entry.type, ...entry.served });
      log('debug', `proxied ${entry.type} ${requestId} ends with the detach: its page calls again once attached`);
      heard.push(new Promise((resolve) => {
        const timer = later(resolve, INTERRUPT_WAIT_MS);
        hearing.set(page, () => { cancelLater(timer); resolve(); });
      }));
      page.ctx.send({ kind: 'fallback', rid: page.rid, reason: CALL_AGAIN });
    }
    await Promise.all(heard);
    hearing.clear();
  }

  /** The page of an interrupted request says it heard CALL_AGAIN. */
  function heard(ctx, rid) {
    for (const [page, resolve] of hearing) if (page.ctx === ctx && page.rid === rid) resolve();
  }

  /** The proxy is attached again: every interrupted request is announced anew, as it was served, and its page told
   *  to call Chromium's own again, which Chromium proxies back here. */
  function callAgain() {
    for (const [page, { type, origin, options, who }] of interrupted) {
      interrupted.delete(page);
      if (!page.ctx.alive) continue;
      announce({ type, origin, options, tabId: who.tabId, frameId: who.frameId, crossOrigin: who.crossOrigin,
        topOrigin: who.topOrigin, userInputAt: who.userInputAt, page });
      page.ctx.send({ kind: 'fallback', rid: page.rid, reason: PROXY });
    }
  }

  /** Interrupted requests when the proxy will not be attached again (the user turned it off, the host went, another
   *  extension took it): their pages get Chromium's answer for a request that cannot go on. */
  function giveUpInterrupted() {
    for (const [page] of interrupted) {
      interrupted.delete(page);
      page.ctx.send({ kind: 'error', rid: page.rid, error: NOT_ALLOWED });
    }
  }

  /** The tab, frame and top-level origin of a proxied request: its announcement, else the focused tab. */
  async function attribute(type, parsed) {
    const a = announced.take(type, parsed.origin, parsed.options);
    // Chromium's own refuses a conditional create at once where no password manager offers an upgrade (measured
    // without the proxy); the proxy event does not say the request was conditional, the announcement does.
    if (a && a.conditional) return { refuse: NOT_ALLOWED, why: 'a conditional create' };
    if (a && a.crossOrigin === !parsed.sameOriginWithAncestors) {
      return { tabId: a.tabId, frameId: a.frameId, crossOrigin: a.crossOrigin, topOrigin: a.topOrigin, userInputAt: a.userInputAt,
        page: a.page, handBack: a.handBack === true && Boolean(a.page), announced: true };
    }
    if (!parsed.sameOriginWithAncestors) return { refuse: NOT_ALLOWED, why: 'an unannounced cross-origin frame' };
    const tab = await Promise.resolve(deps.focusedTab()).catch(() => null);
    if (!tab || urlOrigin(tab.url) !== parsed.origin) return { refuse: NO_FOCUS, why: 'unannounced, and not the focused tab' };
    return { tabId: tab.tabId, frameId: 0, crossOrigin: false, topOrigin: '', userInputAt: null, page: null, announced: false };
  }

  function complete(type, requestId, body) {
    const fn = type === 'create' ? wap.completeCreateRequest : wap.completeGetRequest;
    return Promise.resolve(fn.call(wap, { requestId, ...body })).catch((e) => log('warn', `complete ${type} ${requestId}: ${e && e.message}`));
  }

  /** The one answer to a proxied call, and then the proxy detached if nothing else needs it: only once Chromium took
   *  the answer (it decodes a responseJson asynchronously, and a detach meanwhile would end the call instead). */
  function finish(type, requestId, body) {
    return complete(type, requestId, body).then(() => update());
  }

  /** The router's final answer for a proxied request → completeCreateRequest / completeGetRequest; the user's
   *  "another way" (a fallback) hands it back to the page that announced it. */
  function answer(type, requestId, message, request) {
    pending.delete(requestId);
    if (message.kind === 'fallback' && message.reason === ANOTHER_WAY && request.page) {
      handBack(type, requestId, request);
    } else if (message.kind === 'result') {
      let responseJson;
      try {
        responseJson = codec.responseJson(type, message.credential);
      } catch (error) {
        log('error', `proxied ${type}: malformed host credential (${error.message})`);
        finish(type, requestId, { error: NOT_ALLOWED });
        return;
      }
      served++;
      finish(type, requestId, { responseJson });
    } else if (message.kind === 'error') {
      finish(type, requestId, { error: codec.errorDetails(message.error) });
    } else {
      finish(type, requestId, { error: HOST_GONE });
    }
  }

  async function onRequest(type, request) {
    const requestId = request && request.requestId;
    if (!Number.isInteger(requestId)) return;
    const entry = { type, handle: null, cancelled: false };
    pending.set(requestId, entry);
    let parsed;
    try {
      parsed = codec.parseRequestDetails(type, request.requestDetailsJson);
    } catch (error) {
      log('error', `proxied ${type} ${requestId}: ${error.message}`);
      pending.delete(requestId);
      finish(type, requestId, { error: NOT_ALLOWED });
      return;
    }
    const who = await attribute(type, parsed);
    if (entry.cancelled) return;
    if (who.refuse) {
      log('warn', `refused proxied ${type} from ${parsed.origin}: ${who.why}`);
      pending.delete(requestId);
      finish(type, requestId, { error: who.refuse });
      return;
    }
    if (who.handBack) {
      // A site on the per-site list, or a request too large for the host: Chromium's own serves it, the host never
      // sees it.
      pending.delete(requestId);
      handBack(type, requestId, { page: who.page, options: parsed.options });
      return;
    }
    const oversize = tooLarge(parsed.options, { origin: parsed.origin, topOrigin: who.topOrigin }, deps.bridge.inboundFrameBytes?.());
    if (oversize) {
      // Announced ones were handed back above; an unannounced call has no page script to call Chromium's own again.
      log('warn', `refused proxied ${type} from ${parsed.origin}: unannounced, and ${oversize}`);
      pending.delete(requestId);
      finish(type, requestId, { error: NOT_ALLOWED });
      return;
    }
    entry.served = { origin: parsed.origin, options: parsed.options, who };
    entry.handle = deps.bridge.serveProxied({
      type, options: parsed.options, origin: parsed.origin, crossOrigin: who.crossOrigin, topOrigin: who.topOrigin,
      tabId: who.tabId, frameId: who.frameId, userInputAt: who.userInputAt, page: who.page,
      send: (message) => answer(type, requestId, message, { page: who.page, options: parsed.options }),
    });
  }

  /**
   * The user handed a proxied request back (measured in Chromium 156: a proxied call ends only as the extension
   * completes it, with a credential or with a DOMException of any name, or with AbortError when the proxy detaches;
   * nothing reaches Chromium's own UI while it is attached). The call is completed with HANDED_BACK, the proxy
   * detached, and then the page's script is told `another-way`: it calls Chromium's own again, which now serves.
   * The lend ends when the page says that call settled, when the page goes away, or at the request's time plus
   * LEND_GRACE_MS; the proxy is then attached again only if another request needs it.
   */
  function handBack(type, requestId, { page, options }) {
    log('warn', `proxied ${type} ${requestId} handed back to Chromium's own: the proxy detaches until it settles`);
    // Completed before the detach, so the page's call ends with HANDED_BACK and not with the detach's AbortError.
    complete(type, requestId, { error: { name: HANDED_BACK, message: '' } })
      .then(() => {
        lent.set(page, later(() => returned(page.ctx, page.rid), effectiveTimeout(options) + LEND_GRACE_MS));
        return update();
      })
      .then(() => page.ctx.send({ kind: 'fallback', rid: page.rid, reason: ANOTHER_WAY }));
  }

  /** A handed-back request settled (`rid`), or its page went away (rid null): the proxy may attach again. */
  function returned(ctx, rid) {
    if (rid === null) for (const page of interrupted.keys()) if (page.ctx === ctx) interrupted.delete(page);
    let changed = false;
    for (const [page, timer] of lent) {
      if (page.ctx !== ctx || (rid !== null && page.rid !== rid)) continue;
      cancelLater(timer);
      lent.delete(page);
      changed = true;
    }
    if (changed) update();
  }

  /** Chromium cancelled a proxied request (the page aborted, or Chromium's own timeout). */
  function onCanceled(requestId) {
    const entry = pending.get(requestId);
    if (!entry) return;
    pending.delete(requestId);
    entry.cancelled = true;
    if (entry.handle) deps.bridge.proxiedGone(entry.handle);
    update();
  }

  /** isUserVerifyingPlatformAuthenticatorAvailable(): the bridge serves security keys, never a platform one. */
  function onIsUvpaa(request) {
    if (request && Number.isInteger(request.requestId)) {
      Promise.resolve(wap.completeIsUvpaaRequest({ requestId: request.requestId, isUvpaa: false })).catch(() => {});
    }
  }

  /** Registers the listeners (at the service worker's top level: an event may be what wakes it). */
  function listen() {
    if (!wap) return;
    wap.onCreateRequest.addListener((r) => { onRequest('create', r).catch((e) => log('error', `proxied create: ${e && e.message}`)); });
    wap.onGetRequest.addListener((r) => { onRequest('get', r).catch((e) => log('error', `proxied get: ${e && e.message}`)); });
    wap.onIsUvpaaRequest.addListener(onIsUvpaa);
    wap.onRequestCanceled.addListener(onCanceled);
  }

  return {
    listen, update, announce, onRequest, onCanceled, onIsUvpaa, returned, heard, serves, whenDetached,
    isAttached: () => attached,
    settled: () => transition,
    status: () => ({ state, detail, served, pending: pending.size, attachedNow: attached }),
  };
}
