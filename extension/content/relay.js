/*
 * relay.js — ISOLATED world, document_start, all frames.
 *
 * Carries messages between ceremony.js (same window, MAIN world) and the background:
 *   page → here: window "message" events whose source is this very window and that carry the channel tag;
 *   here → background: one runtime.connect port per document, opened at its first request (so the thousands
 *     of frames that never use WebAuthn cost nothing) and closed with the document, which is how the
 *     background learns that a frame went away and cancels its request;
 *   background → page: postMessage to this window only.
 * Only the final result or error comes here: the ceremony's status ("touch", "PIN", the account chooser) stays
 * between the host, the background and the security-key window (prompt/), which no page can reach.
 */
(function (root) {
  'use strict';

  // Must equal page/codec.js's CHANNEL (a test checks). codec.js cannot be loaded here too: Chromium injects
  // a file listed in two content-script entries only once per frame, so the MAIN-world entry would win.
  const CHANNEL = 'webauthn-bridge/v1';
  // background/router.js's PORT_NAME, by which the background takes this port (relay.test.mjs holds them equal).
  const PORT_NAME = 'webauthn-bridge';
  const MAX_REMEMBERED = 16;
  // The fallback reasons this relay follows: common/fallback-reasons.js's, which a content script cannot import
  // (fallback-reasons.test.mjs holds them equal).
  const ANOTHER_WAY = 'another-way';
  const PROXY = 'proxy';
  const CALL_AGAIN = 'call-again';

  // common/message-checks.js and common/frame-rules.js, loaded before this file in this isolated world (the
  // page's script cannot reach its global): classic scripts the background imports as well (common/relay-shared.js).
  const { isPlainObject, isRequestId } = root.WebAuthnBridgeMessageChecks;

  /** Validates a page→relay message; returns it or null. Only these kinds: the account choice, for one,
   *  comes from the security-key window and never from the page. */
  function parsePageMessage(data) {
    if (!isPlainObject(data) || data.channel !== CHANNEL || data.dir !== 'to-relay') return null;
    if (!isRequestId(data.rid)) return null;
    switch (data.kind) {
      case 'request':
        return (data.type === 'create' || data.type === 'get') && isPlainObject(data.options) ? data : null;
      case 'cancel':
      case 'capabilities':
      case 'below-done':
      case 'interrupted':
      case 'when-detached':
        return data;
      default:
        return null;
    }
  }

  /**
   * The facts frame-rules.js decides on, read through this isolated world's own wrappers (Firefox: Xray
   * wrappers), which page script can neither replace nor observe. `policyOf` is the document's permissions
   * policy object captured at start-up (Chromium: document.featurePolicy; Firefox has none).
   */
  function documentFacts(win, policyOf) {
    const origin = win.origin;
    const opaque = origin === 'null';
    const ancestors = win.location.ancestorOrigins;
    const activation = win.navigator.userActivation;
    return {
      opaque,
      secure: win.isSecureContext === true,
      sameOriginWithAncestors: sameOriginWithAncestors(win, origin),
      topOpaque: ancestors ? ancestors.length > 0 && ancestors[ancestors.length - 1] === 'null' : null,
      policy: policyOf ? { get: policyAllows(policyOf, 'publickey-credentials-get'), create: policyAllows(policyOf, 'publickey-credentials-create') } : null,
      activation: activation ? activation.isActive === true : null,
    };
  }

  /** WebAuthn L3: same origin as every ancestor, walked through the parents. Reading a cross-origin
   *  window's origin throws; an opaque origin is same-origin with no other document. */
  function sameOriginWithAncestors(win, origin) {
    let w = win;
    while (w.parent && w.parent !== w) {
      w = w.parent;
      let theirs;
      try {
        theirs = w.origin;
      } catch (_) {
        return false;
      }
      if (origin === 'null' || theirs !== origin) return false;
    }
    return true;
  }

  /**
   * Whether the `allow` attribute of this document's frame element, or of an ancestor's, names a WebAuthn feature:
   * an embedder that delegates or denies it ("publickey-credentials-get 'none'"). Firefox exposes no permissions
   * policy, so such a frame goes to Firefox's own WebAuthn, which applies the policy. Read through this world's
   * wrappers; the walk stops at the first ancestor of another origin (its frame element is not readable, and
   * such frames go to Firefox's own anyway).
   */
  function embedderNamesWebAuthn(win) {
    let w = win;
    for (let hops = 0; w.parent && w.parent !== w && hops < 64; hops++) {
      let element;
      try {
        element = w.frameElement;
      } catch (_) {
        return false;
      }
      if (!element) return false;
      if (/publickey-credentials-(get|create)/i.test(element.getAttribute('allow') || '')) return true;
      w = w.parent;
    }
    return false;
  }

  /** A feature the browser does not know (an old policy list) is no reason to refuse. */
  function policyAllows(policy, feature) {
    try {
      return !policy.features().includes(feature) || policy.allowsFeature(feature) === true;
    } catch (_) {
      return false;
    }
  }

  function createRelay({ win, runtime, rules }) {
    let port = null;
    const open = new Set(); // rids of modal requests in flight from this document
    // Requests sent through Chromium's proxy path (the last few): the user may hand one back (`another-way`), after
    // which the page says when the request, gone below, has settled (`below-done`).
    const viaProxy = new Set();
    const handedBack = new Set();
    // window.origin, not location.origin: a sandboxed document's location still names its URL's origin, and a
    // message targeted there is silently dropped by its own (opaque) window.
    const selfOrigin = win.origin && win.origin !== 'null' ? win.origin : '*';
    const policy = (win.document && (win.document.permissionsPolicy || win.document.featurePolicy)) || null;
    // Read now, at document_start, before this document's own scripts run: a same-origin frame could otherwise
    // edit its frame element's `allow` before asking (its policy was fixed when it loaded).
    const embedderAtStart = policy ? null : embedderNamesWebAuthn(win);
    // The last trusted press in this document (Date.now()): the security-key window takes the focus only for
    // a user action (background/prompt-window.js). Page script can dispatch events, never trusted ones, and this
    // listener, added at document_start, runs before any of the page's.
    let lastInput = null;
    const noteInput = (event) => { if (event.isTrusted === true && event.repeat !== true) lastInput = Date.now(); };
    win.addEventListener('pointerdown', noteInput, true);
    win.addEventListener('keydown', noteInput, true);

    function toPage(message) {
      win.postMessage({ channel: CHANNEL, dir: 'to-page', ...message }, selfOrigin);
    }

    function ensurePort() {
      if (port) return port;
      port = runtime.connect({ name: PORT_NAME });
      port.onMessage.addListener(fromBackground);
      port.onDisconnect.addListener(() => {
        port = null;
        // Extension reloaded or background gone: every promise must still settle.
        for (const rid of [...open, ...viaProxy]) {
          toPage({ kind: 'error', rid, error: { name: 'NotAllowedError', message: 'The webauthn-bridge extension stopped.' } });
        }
        open.clear();
        viaProxy.clear();
      });
      return port;
    }

    function toBackground(message) {
      try {
        ensurePort().postMessage(message);
        return true;
      } catch (_) {
        port = null;
        return false;
      }
    }

    function fromBackground(message) {
      if (!isPlainObject(message) || typeof message.rid !== 'string') return;
      const { rid } = message;
      switch (message.kind) {
        case 'result':
        case 'error':
        case 'fallback':
          if (viaProxy.delete(rid)) {
            if (message.kind === 'fallback' && message.reason === ANOTHER_WAY) remember(handedBack, rid);
            // Its call ends with the proxy's detach (`call-again`), and it calls again (`proxy`): still through the proxy.
            else if (message.kind === 'fallback' && (message.reason === PROXY || message.reason === CALL_AGAIN)) {
              remember(viaProxy, rid);
            }
          } else if (!open.delete(rid)) {
            return;
          } else if (message.kind === 'fallback' && message.reason === PROXY) {
            remember(viaProxy, rid);
          }
          if (message.kind === 'result') toPage({ kind: 'result', rid, credential: message.credential });
          else if (message.kind === 'error') toPage({ kind: 'error', rid, error: message.error });
          else toPage({ kind: 'fallback', rid, reason: String(message.reason || '') });
          return;
        case 'capabilities':
          toPage({ kind: 'capabilities', rid, capabilities: message.capabilities ?? null,
            proxyAttached: message.proxyAttached === true });
          return;
        case 'detached':
          toPage({ kind: 'detached', rid });
          return;
        default:
      }
    }

    /** Adds `rid` to a bounded set of the last requests: a document that asks often keeps only its latest. */
    function remember(set, rid) {
      set.add(rid);
      if (set.size > MAX_REMEMBERED) set.delete(set.values().next().value);
    }

    function onWindowMessage(event) {
      // Only this window's own scripts; other frames and windows post with a different source.
      if (event.source !== win) return;
      const message = parsePageMessage(event.data);
      if (!message) return;
      event.stopImmediatePropagation();
      const { rid } = message;
      if (message.kind === 'request') {
        // A JSON round trip leaves plain data only (no page getters/proxies, no Xray wrappers in Firefox).
        let options;
        try {
          options = JSON.parse(JSON.stringify(message.options));
        } catch (_) {
          toPage({ kind: 'error', rid, error: { name: 'TypeError', message: 'Options are not serializable.' } });
          return;
        }
        // The frame rules, applied before anything leaves the document: the page's own world may have been
        // talked past (or skipped: this message format is public), this world cannot be.
        const frame = {
          ...documentFacts(win, policy),
          embedderAllow: policy ? null : embedderAtStart || embedderNamesWebAuthn(win),
          lastInput,
        };
        const verdict = rules.frameVerdict(message.type, frame);
        if (verdict && verdict.refuse) {
          toPage({ kind: 'error', rid, error: verdict.refuse });
          return;
        }
        if (verdict && verdict.fallback) {
          toPage({ kind: 'fallback', rid, reason: verdict.fallback });
          return;
        }
        open.add(rid);
        const mediation = message.mediation === 'conditional' ? { mediation: 'conditional' } : {};
        if (!toBackground({ kind: 'request', rid, type: message.type, options, frame, ...mediation })) {
          open.delete(rid);
          toPage({ kind: 'fallback', rid, reason: 'extension-unavailable' });
        }
      } else if (message.kind === 'cancel') {
        if (open.delete(rid)) {
          toBackground({ kind: 'cancel', rid });
        }
      } else if (message.kind === 'below-done') {
        if (handedBack.delete(rid)) toBackground({ kind: 'below-done', rid });
      } else if (message.kind === 'interrupted') {
        if (viaProxy.has(rid)) toBackground({ kind: 'interrupted', rid });
      } else if (message.kind === 'when-detached') {
        // A conditional get waits for Chromium's proxy to be detached (it refuses one while attached); without the
        // background, it goes on at once.
        if (!toBackground({ kind: 'when-detached', rid })) toPage({ kind: 'detached', rid });
      } else if (message.kind === 'capabilities') {
        if (!toBackground({ kind: 'capabilities', rid })) toPage({ kind: 'capabilities', rid, capabilities: null });
      }
    }

    win.addEventListener('message', onWindowMessage, true);
    return { onWindowMessage, fromBackground, openCount: () => open.size };
  }

  if (typeof module === 'object' && module && module.exports) {
    module.exports = { createRelay, parsePageMessage, documentFacts, embedderNamesWebAuthn, CHANNEL, ANOTHER_WAY, PROXY, CALL_AGAIN };
    return;
  }
  const ext = root.browser ?? root.chrome;
  if (ext && ext.runtime && root.WebAuthnBridgeFrameRules) {
    // `window`, not globalThis: in Firefox the content-script global is a sandbox, and event.source is the
    // (Xray-wrapped) window itself.
    createRelay({ win: window, runtime: ext.runtime, rules: root.WebAuthnBridgeFrameRules });
  }
})(globalThis);
