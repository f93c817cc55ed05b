/*
 * fallback-reasons.js — the reasons of a `fallback` answer that the page's script acts on (any other reason means
 * only "the browser's own serves it"), and the error name the proxy path completes a handed-back call with.
 * background/ and the popup import them; the classic scripts that act on them (content/relay.js, page/below.js,
 * page/proxy-path.js) keep copies, which fallback-reasons.test.mjs holds to these.
 */

/** The user handed the request on in the security-key window: the page calls what is below the bridge. */
export const ANOTHER_WAY = 'another-way';

/** The page calls Chromium's own function, whose proxy path hands the call to the bridge (background/proxy.js). */
export const PROXY = 'proxy';

/** A proxied call is about to end because the proxy detaches for another tab's request handed back: the page calls
 *  again when told PROXY once more. */
export const CALL_AGAIN = 'call-again';

/** The error name a proxied call is completed with when the user hands it back: only the page script that made the
 *  call (page/proxy-path.js) sees it, and calls Chromium's own again once the proxy is detached. */
export const HANDED_BACK = 'WebAuthnBridgeHandedBack';
