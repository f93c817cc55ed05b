/*
 * history.js — the last requests the bridge answered, for the toolbar popup: when, which site, create or get,
 * and how it ended. Newest first, at most HISTORY_LIMIT.
 *
 * An entry holds only what the bridge itself decided or read from the browser's records: the trusted origin
 * (never a string the page chose), the type, the outcome (a DOMException name, or why the browser's own WebAuthn
 * served) and, for an error, the bridge's own reason (the host's `detail`: "PIN entry was cancelled"), which the
 * page never gets — no options, no credential, no message text. Kept in memory, mirrored by background/main.js into
 * storage.session so a restarted service worker still has it; nothing reaches disk.
 *
 * Pure (node tests it).
 */
import { PROXY } from '../common/fallback-reasons.js';

export const HISTORY_LIMIT = 20;
const OUTCOMES = new Set(['ok', 'error', 'aborted', 'browser']);
const TYPES = new Set(['create', 'get']);
const MAX_FIELD = 256;

function text(value) {
  return typeof value === 'string' ? value.slice(0, MAX_FIELD) : '';
}

/**
 * One entry from a final answer of the bridge (requesters.js): {kind: 'result'|'error'|'fallback'|'aborted'};
 * `reason`: for an error, the bridge's own words; for the answer that sends a request to Chromium's proxy path, why
 * Chromium's own serves it instead (a listed site's, one too large: intake.js), listed as any other fallback.
 * Returns null for what is not a request's end: the proxy path's hand-over of a request the bridge serves (that
 * request comes back and is listed when it ends).
 */
export function entryFor({ time, type, origin, topOrigin, message, reason = '' }) {
  const kind = message && message.kind;
  let outcome;
  let detail = '';
  let why = '';
  if (kind === 'result') outcome = 'ok';
  else if (kind === 'error') {
    outcome = 'error';
    detail = text(message.error && message.error.name) || 'NotAllowedError';
    why = text(reason);
  }
  else if (kind === 'aborted') outcome = 'aborted';
  else if (kind === 'fallback' && (message.reason !== PROXY || reason)) {
    outcome = 'browser';
    detail = text(message.reason === PROXY ? reason : message.reason);
  }
  else return null;
  return { time, type, origin: text(origin), topOrigin: text(topOrigin), outcome, detail, reason: why };
}

/** An entry as stored, or null when it is not one (storage.session is ours, but a stored shape may be old). */
export function validEntry(e) {
  if (e === null || typeof e !== 'object' || !Number.isFinite(e.time) || !TYPES.has(e.type) || !OUTCOMES.has(e.outcome)) return null;
  return {
    time: e.time, type: e.type, origin: text(e.origin), topOrigin: text(e.topOrigin), outcome: e.outcome,
    detail: text(e.detail), reason: text(e.reason),
  };
}

/** save(entries): where the list is mirrored (storage.session); called after every change. */
export function createHistory({ limit = HISTORY_LIMIT, save = () => {} } = {}) {
  let entries = [];

  function record(entry) {
    if (!entry) return;
    entries = [entry, ...entries].slice(0, limit);
    save(list());
  }

  /** Entries a previous run of the background saved, behind any recorded since it started. */
  function restore(saved) {
    if (!Array.isArray(saved)) return;
    const older = saved.map(validEntry).filter(Boolean);
    entries = [...entries, ...older].sort((a, b) => b.time - a.time).slice(0, limit);
  }

  function list() {
    return entries.map((e) => ({ ...e }));
  }

  return { record, restore, list };
}
