/*
 * host-port.js — the one native port to the webauthn-bridge host: opened at start-up, reopened with backoff,
 * its `info` answer kept, and what a disconnect means (the host missing, or gone mid-flight).
 *
 * Pure of browser globals (node tests it through router.js). Frames for requests go to deps.onFrame; a lost
 * port to deps.onLost, after the toolbar state says why.
 */
import { REPLY, REQUEST, isPlainObject } from '../common/protocol.js';

const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 60000;
const STABLE_CONNECTION_MS = 60000;
// Ids of the background's own `info` requests (docs/protocol.md).
export const INFO_PREFIX = 'bg-info-';
// How long refreshInfo() waits for the host's answer before it settles for the one it has.
const INFO_WAIT_MS = 5000;

/**
 * What a native-port disconnect means. If the host never answered on that port, it is not installed, not
 * allowed, or died at start-up: pending requests go to the browser's own WebAuthn. If it had answered,
 * it crashed mid-flight: pending requests fail (the user may already have touched the key).
 */
export function classifyDisconnect(message, heardFromHost) {
  const text = String(message || '').toLowerCase();
  if (heardFromHost) return { fallback: false, reason: 'host-exited', detail: message || '' };
  let reason = 'host-failed';
  if (text.includes('not found') || text.includes('no such native application')) reason = 'host-missing';
  else if (text.includes('forbidden')) reason = 'host-forbidden';
  return { fallback: true, reason, detail: message || '' };
}

/** 1 s, 2 s, 4 s … capped at 60 s. */
export function backoffDelay(failures) {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, failures));
}

/**
 * deps:
 *   connectNative()          → a Port-like {postMessage, onMessage, onDisconnect, disconnect}
 *   disconnectError(port)    → the message the browser gave for the drop (port.error / runtime.lastError)
 *   setIndicator(state)      → show the host state on the toolbar ({state, reason, detail})
 *   setTimeout/clearTimeout, now(), log(level, text)
 *   onFrame(frame)           → a host frame that is not an answer to the background's own `info`
 *   onLost(verdict)          → the port dropped ({fallback, reason, detail}, classifyDisconnect)
 */
export function createHostPort(deps) {
  const log = deps.log || (() => {});
  let native = null;           // the one native port
  let heard = false;           // got any frame on `native`
  let failures = 0;            // consecutive short-lived connections (drives the backoff)
  let connectedAt = 0;
  let reconnectTimer = null;
  let hostState = { state: 'connecting', reason: '', detail: '' };
  let hostInfo = null;
  let infoSeq = 0;
  let infoWaiters = [];        // resolve(info | null) of refreshInfo() calls, until the next `info` answer

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
    askInfo();
    return native;
  }

  function askInfo() {
    return send({ id: `${INFO_PREFIX}${++infoSeq}`, type: REQUEST.info });
  }

  function send(frame) {
    if (!native) return false;
    try {
      native.postMessage(frame);
      return true;
    } catch (error) {
      log('warn', `native postMessage failed: ${error && error.message}`);
      return false;
    }
  }

  function settleInfoWaiters(info) {
    const waiting = infoWaiters;
    infoWaiters = [];
    for (const resolve of waiting) resolve(info);
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
    settleInfoWaiters(null);
    deps.onLost(verdict);
    reconnectTimer = deps.setTimeout(() => { reconnectTimer = null; connect(); }, backoffDelay(failures - 1));
  }

  function hostFrame(port, frame) {
    if (port !== native || !isPlainObject(frame)) return;
    if (!heard) {
      heard = true;
      setState('connected');
    }
    if (typeof frame.id === 'string' && frame.id.startsWith(INFO_PREFIX)) {
      if (frame.type === REPLY.result) {
        hostInfo = isPlainObject(frame.info) ? frame.info : frame;
        setState('connected');
        settleInfoWaiters(hostInfo);
      }
      return;
    }
    deps.onFrame(frame);
  }

  /** A fresh `info` answer (keys plugged in since start-up show): null when the host cannot be reached. */
  function refreshInfo() {
    const opened = native !== null;
    if (!connect() || (opened && !askInfo())) return Promise.resolve(null); // a new port asked already
    return new Promise((resolve) => {
      let done = false;
      const once = (info) => { if (!done) { done = true; resolve(info); } };
      infoWaiters.push(once);
      deps.setTimeout(() => once(hostInfo), INFO_WAIT_MS);
    });
  }

  return {
    connect, send, refreshInfo,
    state: () => hostState,
    info: () => hostInfo,
  };
}
