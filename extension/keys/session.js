/*
 * session.js — the Security keys page's own connection to the host (docs/protocol.md, "Key management"): a native
 * port this page opens with runtime.connectNative, which neither a web page nor a content script has, whose first
 * frame is `manage`. The host serves key management only on such a connection; the background's connection, the
 * one pages' requests reach, is refused every key frame. The background never carries these frames.
 *
 * One request at a time, as the host serves them. Status frames (`pin`, `touch`) go to onStatus; the PIN goes from
 * pinentry to the key inside the host and never through here. Pure of browser globals: keys.js gives
 * `connectNative` (node tests it with a fake port).
 */
import { KEY_REQUEST, REPLY, REQUEST, isPlainObject } from '../common/protocol.js';

/** The native host's name (install.sh registers it for both browsers). */
export const HOST_NAME = 'webauthn_bridge';

/** A request that failed: `name` the host's error name (or 'HostGone'), `message` what the user reads. */
export class KeyError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name;
  }
}

/** The words for a host error frame: its `detail` (the host's precise reason) over the generic message. */
export function errorOf(frame) {
  const error = isPlainObject(frame.error) ? frame.error : {};
  const detail = typeof frame.detail === 'string' && frame.detail ? frame.detail : '';
  return new KeyError(String(error.name || 'NotAllowedError'), detail || String(error.message || 'The key refused.'));
}

/**
 * deps:
 *   connectNative()          → a Port-like {postMessage, onMessage, onDisconnect, disconnect}
 *   disconnectError(port)    → the browser's reason for a dropped port
 *   onStatus({status, attemptsLeft, samplesLeft, sample}) → what the host waits for (`pin`, `touch`, a finger)
 *   onClosed(reason)         → the host went away; every pending request has failed
 */
export function createKeySession(deps) {
  const pending = new Map();   // id → {resolve, reject}
  let port = null;
  let seq = 0;
  let gone = null;             // the reason, once the port dropped

  function fail(reason) {
    gone = reason || 'The webauthn-bridge host stopped.';
    for (const { reject } of pending.values()) reject(new KeyError('HostGone', gone));
    pending.clear();
    if (deps.onClosed) deps.onClosed(gone);
  }

  function onFrame(frame) {
    if (!isPlainObject(frame) || typeof frame.id !== 'string' || !pending.has(frame.id)) return;
    if (frame.type === REPLY.status) {
      const count = (value) => (Number.isInteger(value) && value >= 0 ? value : null);
      deps.onStatus({ status: String(frame.status || ''), attemptsLeft: count(frame.attemptsLeft),
        samplesLeft: count(frame.samplesLeft), sample: typeof frame.sample === 'string' ? frame.sample : null });
      return;
    }
    const { resolve, reject } = pending.get(frame.id);
    pending.delete(frame.id);
    if (frame.type === REPLY.result) resolve(frame);
    else reject(errorOf(frame));
  }

  /** One frame to the host; resolves with its `result` frame, rejects with a KeyError. `fields` cannot set id or
   *  type. */
  function request(type, fields = {}) {
    if (gone !== null) return Promise.reject(new KeyError('HostGone', gone));
    const id = `keys-${++seq}`;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        port.postMessage({ ...fields, id, type });
      } catch (error) {
        pending.delete(id);
        reject(new KeyError('HostGone', String(error && error.message)));
      }
    });
  }

  /** Opens the connection: `manage` first, which puts the host in key-management mode for this port only. */
  function open() {
    try {
      port = deps.connectNative();
    } catch (error) {
      fail(String(error && error.message));
      return Promise.reject(new KeyError('HostGone', gone));
    }
    port.onMessage.addListener(onFrame);
    port.onDisconnect.addListener(() => fail(deps.disconnectError(port)));
    return request(KEY_REQUEST.manage);
  }

  /** Stops what the host is doing for this page (the PIN dialog, the wait for a touch). */
  function cancel() {
    for (const id of pending.keys()) {
      try { port.postMessage({ id, type: REQUEST.cancel }); } catch (_) { /* the port is gone: nothing runs */ }
    }
  }

  return {
    open,
    cancel,
    /** The keys plugged in (the host's discovery, no key opened). */
    keys: () => request(REQUEST.info).then((frame) => (isPlainObject(frame.info) && Array.isArray(frame.info.devices) ? frame.info.devices : [])),
    keyInfo: (device) => request(KEY_REQUEST['key-info'], { device }).then((frame) => frame.key),
    passkeys: (device) => request(KEY_REQUEST.passkeys, { device }).then((frame) => frame.passkeys),
    deletePasskey: (device, passkey) => request(KEY_REQUEST['passkey-delete'], { device, credentialId: passkey.credentialId }),
    renamePasskey: (device, passkey, name, displayName) => request(KEY_REQUEST['passkey-rename'],
      { device, credentialId: passkey.credentialId, userId: passkey.userId, name, displayName }),
    // Each change of the key's own state answers with its facts read again.
    setPIN: (device) => request(KEY_REQUEST['pin-set'], { device }).then((frame) => frame.key),
    changePIN: (device) => request(KEY_REQUEST['pin-change'], { device }).then((frame) => frame.key),
    configure: (device, setting, value) => request(KEY_REQUEST['key-config'], { device, setting, value }).then((frame) => frame.key),
    reset: (device) => request(KEY_REQUEST['key-reset'], { device }).then((frame) => frame.key),
    fingerprints: (device) => request(KEY_REQUEST.fingerprints, { device }).then((frame) => (Array.isArray(frame.fingerprints) ? frame.fingerprints : [])),
    renameFingerprint: (device, templateId, name) => request(KEY_REQUEST['fingerprint-rename'], { device, templateId, name }),
    deleteFingerprint: (device, templateId) => request(KEY_REQUEST['fingerprint-delete'], { device, templateId }),
    addFingerprint: (device, name) => request(KEY_REQUEST['fingerprint-add'], { device, name }),
  };
}
