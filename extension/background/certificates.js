/*
 * certificates.js — whether the document asking for a ceremony was loaded over a certificate the browser
 * rejected and the user let through anyway (Chromium's "Proceed", Firefox's "Accept the risk"). Both browsers'
 * own WebAuthn refuse such a document: a network attacker who gets that click must not get a credential for the
 * real origin. `isSecureContext` stays true after the click, so no page-side rule can tell; only the browser can.
 *
 * What each browser tells an extension, and so what is decided here:
 *   - Firefox: webRequest.getSecurityInfo() in a blocking onHeadersReceived listener gives each document
 *     response's certificate state, overridden errors included (`overridableErrorCategory`, `isUntrusted`,
 *     `isDomainMismatch`, `isNotValidAtThisTime`). The last response of each frame is kept with its origin, and
 *     an origin once seen with an overridden error stays refused for the session (a document restored from the
 *     back/forward cache makes no request). A document with no such record (loaded before the extension
 *     started, or from a service worker) is handed to Firefox's own WebAuthn, which checks it itself.
 *   - Chromium: no API gives the certificate state, so Chromium's own check must run: on the proxy path (the
 *     default) it runs before Chromium proxies the request; while the proxy is not attached by choice (switched
 *     off, or detached while a request is handed back to Chromium's own), an https document goes to Chromium's own
 *     WebAuthn. Only where
 *     the proxy cannot be attached (no API, or another extension holds it) does the page path serve https
 *     unchecked (docs/security.md). Chromium's webRequest is not used: an unpacked Manifest V3 extension that
 *     declares "webRequest" held up the page Chromium 156 opens at start-up (measured with the demo).
 * Firefox needs "webRequest" and "webRequestBlocking" for that listener: packaging/extension_package.py adds them
 * to the .xpi's manifest only. Without them every https document counts as unknown.
 * Both browsers exempt loopback hosts from their check (https://localhost with a self-signed certificate is
 * served), and so does this.
 *
 * Pure of browser globals (node tests it); the browser's webRequest API is `deps.webRequest`.
 */

/** Firefox ESR 153's own refusal of such a document, measured (docs/security.md). Chromium's is Chromium's to
 *  give: the bridge never answers for it (below). */
export const FIREFOX_REFUSAL = Object.freeze({ name: 'SecurityError', message: 'The operation is insecure.' });

/** The fallback reason for a document whose certificate state is unknown: the browser's own WebAuthn decides. */
export const FALLBACK_UNKNOWN = 'certificate-unknown';
/** Chromium's proxy states (proxy.js) in which the proxy cannot be attached, so the page path serves https. */
const PROXY_UNAVAILABLE = new Set(['unsupported', 'taken']);

const DOCUMENTS = ['main_frame', 'sub_frame'];
const FRAMES_MAX = 2048;

/** Hosts both browsers exempt from their certificate check for WebAuthn. */
export function isLoopbackHost(hostname) {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

function httpsOrigin(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' ? { origin: parsed.origin, loopback: isLoopbackHost(parsed.hostname) } : null;
  } catch (_) {
    return null;
  }
}

/** Firefox's SecurityInfo → "overridden" (an error the user let through), "valid", or "unknown". */
export function certificateState(info) {
  if (!info || typeof info !== 'object') return 'unknown';
  const category = info.overridableErrorCategory;
  if ((typeof category === 'string' && category !== '' && category !== 'unset') || info.isUntrusted === true
    || info.isDomainMismatch === true || info.isNotValidAtThisTime === true) return 'overridden';
  return info.state === 'secure' || info.state === 'weak' ? 'valid' : 'unknown';
}

/**
 * deps: firefox (Firefox: getSecurityInfo is the source), webRequest (Firefox's browser.webRequest, or null),
 * proxyState() (Chromium: proxy.js's state: attached, off, detached, taken, unsupported), log(level, text).
 */
export function createCertificateWatch(deps) {
  const log = deps.log || (() => {});
  const webRequest = deps.firefox ? deps.webRequest || null : null;
  const frames = new Map();        // "tab/frame" → {origin, state}: the frame's last document response
  const overridden = new Set();    // origins seen with a certificate error the user let through

  function note(tabId, frameId, origin, state) {
    if (state === 'overridden') {
      if (!overridden.has(origin)) log('warn', `${origin} was loaded past a certificate error: WebAuthn is refused there`);
      overridden.add(origin);
    }
    const key = `${tabId}/${frameId}`;
    frames.delete(key);
    if (frames.size >= FRAMES_MAX) frames.delete(frames.keys().next().value);
    frames.set(key, { origin, state });
  }

  /** Firefox: the blocking listener getSecurityInfo needs; it changes nothing in the response. */
  async function onHeadersReceived(details) {
    const https = httpsOrigin(details.url);
    if (!https) return {};
    let state = 'unknown';
    try {
      state = certificateState(await webRequest.getSecurityInfo(details.requestId, {}));
    } catch (error) {
      log('warn', `no security info for ${https.origin}: ${error && error.message}`);
    }
    note(details.tabId, details.frameId, https.origin, state);
    return {};
  }

  /** Registers Firefox's listener; false without one (Chromium; Firefox without the permissions: an unpacked
   *  copy of the source manifest, which leaves them to the packaged .xpi). */
  function listen() {
    if (!webRequest) return false;
    try {
      webRequest.onHeadersReceived.addListener(onHeadersReceived, { urls: ['https://*/*'], types: DOCUMENTS }, ['blocking']);
      return true;
    } catch (error) {
      log('warn', `cannot watch certificates (${error && error.message}): https documents go to the browser's own WebAuthn`);
      return false;
    }
  }

  /**
   * The request of the document `sender` describes (its tab, frame and origin, from the browser):
   * {refuse: error} for a document past a certificate error (Firefox), {fallback: reason} to let the browser's
   * own WebAuthn check it, or null.
   */
  function verdict(sender, origin) {
    const https = typeof origin === 'string' ? httpsOrigin(origin) : null;
    if (!https || https.loopback) return null;
    if (!deps.firefox) {
      const state = deps.proxyState ? deps.proxyState() : 'unsupported';
      return state === 'attached' || PROXY_UNAVAILABLE.has(state) ? null : { fallback: FALLBACK_UNKNOWN };
    }
    if (overridden.has(https.origin)) return { refuse: FIREFOX_REFUSAL };
    const tabId = sender && sender.tab ? sender.tab.id : undefined;
    const record = frames.get(`${tabId}/${sender && Number.isInteger(sender.frameId) ? sender.frameId : 0}`);
    if (!record || record.origin !== https.origin || record.state !== 'valid') return { fallback: FALLBACK_UNKNOWN };
    return null;
  }

  return { listen, verdict, onHeadersReceived };
}
