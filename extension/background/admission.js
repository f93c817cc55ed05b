/*
 * admission.js — the background's last word on whether a frame's request may reach the host, and as whom.
 *
 * Pure (node tests it). Inputs are what the browser itself says about the requesting document — the port's
 * sender record (origin, url, frameId, tab) and the webNavigation frame tree of its tab — plus the facts the
 * relay gathered in its isolated world (common/frame-rules.js), which the page cannot forge: the page can
 * post to the relay, but only the content script holds the port this message arrives on.
 *
 * Result: {refuse: {name, message}}, {fallback: reason}, or the caller for the host frame:
 *   {origin, topOrigin?, crossOrigin}   — WebAuthn L3 §5.1.3/§5.1.4: crossOrigin is "not same-origin with all
 *   its ancestors", and topOrigin is then the top-level origin (so A→B→A is cross-origin with topOrigin A);
 *   and userInputAt, the relay's last trusted press in the document (or null), for the security-key window.
 * Focus is not decided here: it needs the tab's live state (router.js, host-queue.js).
 */
import { NOT_ALLOWED } from '../common/chromium-errors.js';

// Facts the relay could not have sent: Chromium's NotAllowedError says no more.
const MALFORMED = NOT_ALLOWED;

export function urlOrigin(url) {
  try {
    const origin = new URL(url).origin;
    return origin && origin !== 'null' ? origin : null;
  } catch (_) {
    return null;
  }
}

/**
 * The requesting document's origin from the sender record. Both browsers under test give sender.origin
 * ("null" for an opaque origin); where it is missing (older Firefox), the URL's origin stands only if the
 * relay saw a non-opaque origin — a CSP-sandboxed document's URL names an origin it does not have.
 */
export function senderOrigin(sender, relaySaysOpaque) {
  if (typeof sender.origin === 'string') return sender.origin === 'null' ? null : sender.origin;
  if (relaySaysOpaque || typeof sender.url !== 'string') return null;
  return urlOrigin(sender.url);
}

/**
 * Whether every ancestor of `frameId` in the tab's frame tree has `origin`, from the browser's records.
 * Unknown frames, and ancestors whose URL names no origin (about:blank, about:srcdoc), count as other
 * origins: the answer may only err towards "cross-origin", whose rules are the stricter ones.
 */
export function treeSameOrigin(frames, frameId, origin) {
  if (frameId === 0) return true;
  if (!Array.isArray(frames)) return false;
  const byId = new Map(frames.map((f) => [f.frameId, f]));
  let frame = byId.get(frameId);
  for (let hops = 0; frame && frame.parentFrameId !== -1; hops++) {
    if (hops > 64) return false;
    frame = byId.get(frame.parentFrameId);
    if (!frame || urlOrigin(frame.url) !== origin) return false;
  }
  return Boolean(frame);
}

/**
 * The requesting document's origin and, for a subframe, the top-level origin — from the browser's sender
 * record only: sender.origin (both browsers under test; "null" for an opaque origin), else sender.url (older
 * Firefox), and sender.tab.url for the top. Returns null for opaque origins (CSP-sandboxed documents,
 * sandboxed frames, about:blank, data:), whose URL names an origin they do not have. What the security-key
 * window, the popup and the per-site switch show; the host frame's caller comes from admit().
 */
export function originFromSender(sender) {
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

/** The top-level document's origin: frame 0 of the tree, else the tab's URL. */
export function topOriginOf(frames, sender) {
  const top = Array.isArray(frames) ? frames.find((f) => f.frameId === 0) : null;
  if (top && typeof top.url === 'string') return urlOrigin(top.url);
  return sender.tab && typeof sender.tab.url === 'string' ? urlOrigin(sender.tab.url) : null;
}

/**
 * type: "create"|"get"; sender: the port's MessageSender; relayFacts: the request's `frame` member;
 * frames: webNavigation.getAllFrames() of the tab (null for frame 0, which needs none); rules: frame-rules.js.
 */
export function admit(type, sender, relayFacts, frames, rules) {
  const facts = rules.parseFrameFacts(relayFacts);
  if (!facts || !sender || typeof sender !== 'object') return { refuse: MALFORMED };
  const frameId = Number.isInteger(sender.frameId) ? sender.frameId : 0;
  const origin = senderOrigin(sender, facts.opaque);
  const merged = {
    ...facts,
    opaque: facts.opaque || origin === null,
    // An opaque subframe is same-origin with no ancestor; a top-level document has none to differ from.
    sameOriginWithAncestors: facts.sameOriginWithAncestors && (frameId === 0 || (origin !== null && treeSameOrigin(frames, frameId, origin))),
  };
  const verdict = rules.frameVerdict(type, merged);
  if (verdict) return verdict;
  // Not the host's business: when the document last saw the user press something, for the security-key window.
  const userInputAt = facts.lastInput;
  if (merged.sameOriginWithAncestors) return { origin, crossOrigin: false, userInputAt };
  const topOrigin = topOriginOf(frames, sender);
  if (!topOrigin) return { refuse: rules.REFUSALS.opaque };
  return { origin, topOrigin, crossOrigin: true, userInputAt };
}
