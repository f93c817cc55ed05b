/*
 * intake.js — what happens to a page's request before it may wait for the host: refused (admission.js: opaque
 * origin, permissions policy, user activation, ancestors; create without focus), left to the browser's own
 * WebAuthn (the per-site switch, site-list.js; a request too large for the host, request-size.js), handed to Chromium's proxy path (proxy.js), or queued
 * (router.js's enqueue).
 *
 * Pure of browser globals (node tests it through router.js).
 */
import { NO_FOCUS } from '../common/chromium-errors.js';
import { PROXY } from '../common/fallback-reasons.js';
import * as rules from '../common/relay-shared.js';
import * as admission from './admission.js';
import { TOO_LARGE, tooLarge } from './request-size.js';
import { siteMatches } from './site-list.js';


/**
 * deps: frameTree(tabId), isTabFocused(tabId), loadSiteList(), proxy (optional), certificates (optional:
 * certificates.js's watch), log(level, text) — as for
 * router.js's createBridge — enqueue(entry), which takes an admitted request into the queue, and
 * inboundFrameBytes(), the host's inbound limit as its `info` says (undefined before it said).
 */
export function createIntake(deps) {
  const log = deps.log || (() => {});
  let siteList = null;         // cached; refreshed by sitesChanged()

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
   * A page's request (requesters.js): admitted and, for create, focused (Chromium refuses create from a page
   * without focus), then queued: it reaches the host when the host is free and its tab is focused.
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
    // A document the browser loaded past a certificate error: refused with the browser's own error; one Firefox
    // told us nothing about goes to Firefox's own WebAuthn (certificates.js).
    const certificate = deps.certificates ? deps.certificates.verdict(ctx.sender, caller.origin) : null;
    if (certificate) {
      log('warn', `refused ${type} from ${caller.origin}: ${certificate.fallback || certificate.refuse.message}`);
      if (certificate.refuse) ctx.send({ kind: 'error', rid, error: certificate.refuse });
      else ctx.send({ kind: 'fallback', rid, reason: certificate.fallback });
      return;
    }
    if (message.mediation === 'conditional') {
      // The browser's own answers a conditional request (the bridge offers no passkey autofill or upgrade). Should
      // the proxy be attached when the call comes (for another request), Chromium would hand it over as a modal one:
      // announced as conditional, proxy.js refuses it as Chromium's own does.
      if (deps.proxy && deps.proxy.serves()) deps.proxy.announce({ type, origin: caller.origin, options: message.options, conditional: true });
      ctx.send({ kind: 'fallback', rid, reason: 'conditional' });
      return;
    }
    if (type === 'create' && !(await Promise.resolve(deps.isTabFocused(ctx.tabId)).catch(() => false))) {
      log('warn', `refused create from tab ${ctx.tabId}: the tab does not have focus`);
      ctx.send({ kind: 'error', rid, error: NO_FOCUS });
      return;
    }
    const listed = await sitesFor(caller.origin);
    const oversize = tooLarge(message.options, caller, deps.inboundFrameBytes && deps.inboundFrameBytes());
    if (oversize) log('warn', `${type} from ${caller.origin} left to the browser's own WebAuthn: ${oversize}`);
    // Why the browser's own WebAuthn serves the request, not the host ('' when the host does).
    const below = oversize ? TOO_LARGE : (listed ? 'site-setting' : '');
    // Chromium serves the page's call from here on, with its own checks, and proxies it back to us: the announcement
    // tells which tab and frame it comes from (the proxy event does not say), and has the proxy attached before the
    // page calls. A listed site's call, or one too large, is handed straight back (proxy.js), to Chromium's own: it
    // never comes back to the bridge, so the popup lists it now, with its reason, as the page path does below.
    if (deps.proxy && deps.proxy.serves() && await deps.proxy.announce({ type, origin: caller.origin, options: message.options,
      tabId: ctx.tabId, frameId: ctx.frameId, crossOrigin: caller.crossOrigin === true, topOrigin: caller.topOrigin || '',
      userInputAt: caller.userInputAt ?? null, page: { ctx, rid }, handBack: Boolean(below) })) {
      ctx.send({ kind: 'fallback', rid, reason: PROXY }, below);
      return;
    }
    if (below) {
      ctx.send({ kind: 'fallback', rid, reason: below });
      return;
    }
    // The page may have aborted while the browser answered.
    if (!ctx.alive || ctx.cancelled.delete(rid)) return;
    deps.enqueue({ ctx, rid, type, tabId: ctx.tabId, frameId: ctx.frameId, options: message.options, caller });
  }

  function sitesChanged(lines) {
    siteList = Array.isArray(lines) ? lines : [];
  }

  /** The user listed `origin` (the security-key window's "always"): counted from now, before storage says so. */
  function siteListed(origin) {
    if (siteList !== null && !siteMatches(siteList, origin)) siteList = [...siteList, origin];
  }

  return { request, sitesChanged, siteListed };
}
