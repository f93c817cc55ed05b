/*
 * requesters.js — where requests come from, as the bridge (router.js) sees them: a content-script port (one
 * per frame document that made a request) or a request Chromium proxied (proxy.js). Each becomes a `ctx`:
 * who asks (tab, frame, trusted origin from the browser's records) and `send`, the one way back.
 *
 * A final answer sent through a ctx (result, error, fallback) is reported to deps.answered, which keeps the
 * popup's list of last requests; a page's own abort too. Pure of browser globals (node tests it through
 * router.js).
 */
import { isPlainObject, isRequestId } from '../common/protocol.js';
import { originFromSender } from './admission.js';

// Requests of one document the bridge remembers the type of, until answered (for the popup's list only).
const MAX_OPEN_PER_DOCUMENT = 16;
const FINAL_KINDS = new Set(['result', 'error', 'fallback']);
export const PROXIED_RID = 'proxy';

/**
 * deps:
 *   now()                       → ms
 *   nextPageId()                → a number unique over the background's lifetime
 *   request(ctx, message)       → a page's create/get, well-formed
 *   cancel(ctx, rid)            → the page aborted `rid`
 *   capabilities()              → the host's capabilities, or null when it is not connected
 *   proxyAttached()             → whether Chromium's proxy is attached (it then refuses conditional requests)
 *   gone(ctx)                   → the requester went away: nothing more to answer
 *   belowDone(ctx, rid)         → optional: a request the user handed back from Chromium's proxy path has settled
 *   interrupted(ctx, rid)       → optional: the page heard that its proxied call ends with the proxy's detach
 *   whenDetached(fn)            → optional: fn() once Chromium's proxy is not attached (a conditional get waits)
 *   answered(ctx, type, message, reason) → a final answer went out (or the page aborted: {kind: 'aborted'});
 *                                   reason: the bridge's own words for an error, or why Chromium's own serves a
 *                                   request sent to its proxy path (history.js), for the popup, never the page
 */
export function createRequesters(deps) {
  function context(fields, deliver) {
    const ctx = {
      pageId: deps.nextPageId(),
      connectedAt: deps.now(),
      alive: true,
      cancelled: new Set(),    // rids cancelled before their request reached the host
      open: new Map(),         // rid → type, until answered
      ...fields,
      /** `reason`: why an error happened (or why Chromium's own serves a request sent to the proxy path), in the
       *  bridge's words; it goes to the popup's list, not to the page. */
      send(message, reason = '') {
        if (!ctx.alive) return;
        if (isPlainObject(message) && FINAL_KINDS.has(message.kind) && ctx.open.has(message.rid)) {
          const type = ctx.open.get(message.rid);
          ctx.open.delete(message.rid);
          deps.answered(ctx, type, message, reason);
        }
        deliver(message);
      },
    };
    return ctx;
  }

  /** A content-script port: its messages become requests, cancels and capability questions. */
  function attachFrame(port) {
    const sender = port.sender || {};
    const ctx = context({
      tabId: sender.tab && Number.isInteger(sender.tab.id) ? sender.tab.id : -1,
      frameId: Number.isInteger(sender.frameId) ? sender.frameId : 0,
      sender,
      trusted: originFromSender(sender),
    }, (message) => {
      try { port.postMessage(message); } catch (_) { ctx.alive = false; }
    });
    port.onMessage.addListener((message) => pageMessage(ctx, message));
    port.onDisconnect.addListener(() => deps.gone(ctx));
    return ctx;
  }

  function pageMessage(ctx, message) {
    if (!isPlainObject(message) || !isRequestId(message.rid)) return;
    switch (message.kind) {
      case 'request':
        if ((message.type === 'create' || message.type === 'get') && isPlainObject(message.options)) {
          if (ctx.open.size < MAX_OPEN_PER_DOCUMENT) ctx.open.set(message.rid, message.type);
          deps.request(ctx, message);
        }
        break;
      case 'cancel':
        if (ctx.open.has(message.rid)) {
          deps.answered(ctx, ctx.open.get(message.rid), { kind: 'aborted', rid: message.rid });
          ctx.open.delete(message.rid);
        }
        deps.cancel(ctx, message.rid);
        break;
      case 'capabilities':
        ctx.send({ kind: 'capabilities', rid: message.rid, capabilities: deps.capabilities(),
          proxyAttached: deps.proxyAttached() });
        break;
      case 'below-done':
        if (deps.belowDone) deps.belowDone(ctx, message.rid);
        break;
      case 'interrupted':
        if (deps.interrupted) deps.interrupted(ctx, message.rid);
        break;
      case 'when-detached':
        if (deps.whenDetached) deps.whenDetached(() => ctx.send({ kind: 'detached', rid: message.rid }));
        else ctx.send({ kind: 'detached', rid: message.rid });
        break;
      default:
        break;
    }
  }

  /** A request Chromium proxied, attributed to its tab and frame; `send` gets its one final answer. `page`: the
   *  page's request it came from ({ctx, rid}), when the page announced it, so the user may hand it back. */
  function proxied({ type, origin, crossOrigin, topOrigin, tabId, frameId, send, page = null }) {
    const ctx = context({
      tabId, frameId, sender: null, proxied: true, page,
      trusted: crossOrigin ? { origin, topOrigin } : { origin },
    }, (message) => {
      ctx.alive = false;
      send(message);
    });
    ctx.open.set(PROXIED_RID, type);
    return ctx;
  }

  return { attachFrame, proxied };
}
