/*
 * proxy-announcements.js — which tab and frame a call Chromium proxies came from (proxy.js). The proxy event names
 * none; the page path's intake announced the same call before the page made it, by (type, origin, challenge), and an
 * announcement is used once, within ANNOUNCED_TTL_MS. Pure (node tests it through proxy.js).
 */
import * as codec from './proxy-codec.js';

export const ANNOUNCED_TTL_MS = 10000;
const ANNOUNCED_MAX = 32;

/** now() → ms. */
export function createAnnouncements(now) {
  const table = new Map();   // "type origin challenge" → {tabId, frameId, crossOrigin, topOrigin, userInputAt, …, at}

  function keyOf(type, origin, challenge) {
    return `${type} ${origin} ${challenge}`;
  }

  function forgetOld(room = false) {
    const at = now();
    for (const [key, a] of table) if (at - a.at > ANNOUNCED_TTL_MS || (room && table.size >= ANNOUNCED_MAX)) table.delete(key);
  }

  /** Notes a page's request ({type, origin, options, …what it is served as}); false when it names no challenge. */
  function add({ type, origin, options, ...record }) {
    const challenge = codec.challengeOf(options);
    if (!challenge) return false;
    forgetOld(true);
    table.set(keyOf(type, origin, challenge), { ...record, at: now() });
    return true;
  }

  /** The current announcement of a proxied call (options in either form), taken out; null when there is none. */
  function take(type, origin, options) {
    const key = keyOf(type, origin, codec.challengeOf(options));
    const a = table.get(key);
    table.delete(key);
    return a && now() - a.at <= ANNOUNCED_TTL_MS ? a : null;
  }

  /** Whether a current announcement needs the proxy attached: one the bridge serves (not a conditional create's,
   *  nor a listed site's, which Chromium's own takes unless the proxy is attached anyway). */
  function needProxy() {
    forgetOld();
    return [...table.values()].some((a) => !a.conditional && !a.handBack);
  }

  return { add, take, needProxy };
}
