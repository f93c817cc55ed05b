/*
 * frame-rules.js — which documents may run a WebAuthn ceremony, decided from facts page script cannot touch.
 *
 * Loaded in two places, never in the page's own world:
 *   - the isolated content script (content/relay.js), which gathers the facts of its document through its own
 *     wrappers (window.origin, document.featurePolicy, navigator.userActivation, the parent chain) and applies
 *     these rules before anything leaves the document;
 *   - the background (background/intake.js, through common/relay-shared.js), the last line: it applies them
 *     again to the relay's facts merged with its own (sender.origin, the webNavigation frame tree, the tab's focus).
 * So it is a classic script, as common/message-checks.js is (loaded before it in both places), and puts one
 * frozen object, `WebAuthnBridgeFrameRules`, on the global of the realm that runs it.
 * The refusals carry Chromium 156's own DOMException names and messages, in Chromium's order (permissions
 * policy, then user activation for a cross-origin create, then the opaque origin), as measured with its own
 * WebAuthn in the same scenarios (docs/extension.md, "Who may call"). The messages are copies of
 * common/chromium-texts.js's, which this classic file cannot import (chromium-errors.test.mjs compares them).
 *
 * It does not decide the focus rule's waiting (router.js does) nor anything about the request's options.
 */
(function (root) {
  'use strict';

  // common/message-checks.js, loaded before this file in both places.
  const { isPlainObject } = root.WebAuthnBridgeMessageChecks;

  function refusal(message) {
    return { name: 'NotAllowedError', message };
  }

  const REFUSALS = Object.freeze({
    policy: (type) => refusal(`The 'publickey-credentials-${type}' feature is not enabled in this document. ` +
      'Permissions Policy may be used to delegate Web Authentication capabilities to cross-origin child frames.'),
    activation: refusal('A user activation is required to create a credential in a cross-origin iframe.'),
    opaque: refusal("The current origin is an opaque origin and hence not allowed to access 'PublicKeyCredential' objects."),
    insecure: refusal('WebAuthn is only available in a secure context.'),
  });

  /** Firefox exposes no permissions policy, so a cross-origin frame is left to Firefox's own WebAuthn… */
  const FALLBACK_CROSS_ORIGIN = 'cross-origin-frame';
  /** …and so is a frame whose embedder's `allow` names a WebAuthn feature (it may deny it: 'none'). */
  const FALLBACK_EMBEDDER_POLICY = 'embedder-policy';

  function isBoolOrNull(v) {
    return v === true || v === false || v === null;
  }

  /**
   * The facts the relay reports for its document, validated; null when the shape is wrong.
   *   opaque                   window.origin is "null" (CSP sandbox, sandboxed iframe, data:, …)
   *   secure                   window.isSecureContext
   *   sameOriginWithAncestors  WebAuthn L3 §5.1.3 step 2's "same-origin with its ancestors", over every ancestor
   *   topOpaque                the top-level document's origin is opaque (location.ancestorOrigins), or null
   *                            when the browser has no ancestorOrigins
   *   policy                   {get, create}: the permissions policy allows the feature; null where the browser
   *                            does not expose the policy (Firefox)
   *   activation               transient user activation (navigator.userActivation.isActive); null if unknown
   *   embedderAllow            where the policy is not exposed: the `allow` attribute of this document's frame
   *                            element or an ancestor's names a WebAuthn feature; null otherwise
   *   lastInput                when the document last saw a trusted press (Date.now()), or null: for the
   *                            security-key window's focus, not for admission
   */
  function parseFrameFacts(value) {
    if (!isPlainObject(value)) return null;
    const { opaque, secure, sameOriginWithAncestors, topOpaque, policy, activation } = value;
    const embedderAllow = value.embedderAllow ?? null;
    const lastInput = value.lastInput ?? null;
    if (typeof opaque !== 'boolean' || typeof secure !== 'boolean' || typeof sameOriginWithAncestors !== 'boolean') return null;
    if (!isBoolOrNull(topOpaque) || !isBoolOrNull(activation) || !isBoolOrNull(embedderAllow)) return null;
    if (lastInput !== null && !Number.isFinite(lastInput)) return null;
    if (policy !== null && (!isPlainObject(policy) || typeof policy.get !== 'boolean' || typeof policy.create !== 'boolean')) return null;
    return {
      opaque, secure, sameOriginWithAncestors, topOpaque, activation, embedderAllow, lastInput,
      policy: policy === null ? null : { get: policy.get, create: policy.create },
    };
  }

  /**
   * What happens to a `type` ("create"/"get") request from a document with these facts:
   *   {refuse: {name, message}}  answer the page with this error
   *   {fallback: reason}         hand the call to the browser's own WebAuthn, which enforces the rule itself
   *   null                       the frame rules allow it (focus is decided later, browser-side)
   */
  function frameVerdict(type, facts) {
    if (!facts.secure) return { refuse: REFUSALS.insecure };
    if (facts.policy !== null && facts.policy[type] !== true) return { refuse: REFUSALS.policy(type) };
    if (facts.policy === null && facts.embedderAllow === true) return { fallback: FALLBACK_EMBEDDER_POLICY };
    if (!facts.sameOriginWithAncestors) {
      if (facts.policy === null) return { fallback: FALLBACK_CROSS_ORIGIN };
      if (type === 'create' && facts.activation !== true) return { refuse: REFUSALS.activation };
    }
    if (facts.opaque) return { refuse: REFUSALS.opaque };
    // A frame under an opaque top-level document (a CSP-sandboxed upload framing the real login page):
    // Chromium's own refuses it with the opaque-origin error, and the top's URL must not stand in as topOrigin.
    if (!facts.sameOriginWithAncestors && facts.topOpaque === true) return { refuse: REFUSALS.opaque };
    return null;
  }

  root.WebAuthnBridgeFrameRules = Object.freeze({ REFUSALS, FALLBACK_CROSS_ORIGIN, FALLBACK_EMBEDDER_POLICY, parseFrameFacts, frameVerdict });
})(globalThis);
