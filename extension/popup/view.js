/*
 * view.js — what the toolbar button's popup (popup.html, wired by popup.js) shows: whether the host serves (and
 * its version), the security keys it sees (and what each one a ceremony has used can do), the last requests
 * (site, outcome, time) and a link to the options page.
 *
 * It renders the background's status answer (router.js status()). Every string goes into the DOM as textContent:
 * device names come from the key, origins from the browser's records, but nothing here is ever parsed as HTML.
 */
import { ANOTHER_WAY } from '../common/fallback-reasons.js';
import { reasonText } from '../common/host-states.js';

const STATE_LABELS = { connected: 'On', connecting: 'Connecting', unavailable: 'Off' };
const DONE = { create: 'Registered', get: 'Signed in' };
const TYPE_LABELS = { create: 'Register', get: 'Sign in' };
// What each error means for the user; the DOMException name stays beside it for a bug report.
const ERROR_TEXT = {
  NotAllowedError: 'Cancelled, timed out or not allowed',
  InvalidStateError: 'This key is registered already',
  SecurityError: 'Refused: the site asked for another domain',
  NotSupportedError: 'Not supported by the key',
  TypeError: 'Refused: the site sent a bad request',
  AbortError: 'Aborted by the site',
  RangeError: 'Refused: the site sent too long a list',
};
const BROWSER_TEXT = {
  'site-setting': 'the site is listed in the options',
  [ANOTHER_WAY]: 'you chose another way in the security-key window',
  'host-missing': 'the host is not installed',
  'host-forbidden': 'the host does not allow this extension',
  'host-failed': 'the host failed to start',
  'too-large': 'the request is larger than the host can carry',
};

/** The badge and the line under the title, from the background's status (router.js status()). */
export function hostSummary(status) {
  const s = status && typeof status === 'object' ? status : {};
  const state = Object.prototype.hasOwnProperty.call(STATE_LABELS, s.state) ? s.state : 'connecting';
  const info = s.info && typeof s.info === 'object' ? s.info : null;
  let line;
  if (state === 'unavailable') {
    line = `Not serving: ${reasonText(s.reason, s.detail)}. Sites use the browser's own WebAuthn.`;
  } else if (state === 'connecting') {
    line = s.reason ? `Connecting: ${reasonText(s.reason, s.detail)}.` : 'Connecting to the host…';
  } else {
    const parts = [`Host ${text(info && info.version) || '?'}`];
    if (info && info.libfido2) parts.push(`libfido2 ${text(info.libfido2)}`);
    line = parts.join(' · ');
  }
  return { state, label: STATE_LABELS[state], line };
}

function text(value) {
  return typeof value === 'string' ? value : (typeof value === 'number' && Number.isFinite(value) ? String(value) : '');
}

function hex4(n) {
  return Number.isInteger(n) && n >= 0 ? n.toString(16).padStart(4, '0') : '????';
}

/** A key's lines: its name, then what it is (kind, maker, USB id), from the host's discovery, then what it can do
 *  (`capabilities`, the host's line for a key a ceremony has opened; '' until then). The host names a SoftToken
 *  "… (software token for development and tests)": the kind is not said twice. */
export function keyLines(device) {
  const d = device && typeof device === 'object' ? device : {};
  const name = text(d.product) || text(d.path) || 'Unnamed key';
  const kind = text(d.kind) || 'security key';
  const parts = name.toLowerCase().includes(kind.toLowerCase()) ? [] : [kind];
  if (text(d.manufacturer)) parts.push(text(d.manufacturer));
  if (d.vendorId || d.productId) parts.push(`USB ${hex4(d.vendorId)}:${hex4(d.productId)}`);
  if (text(d.path)) parts.push(text(d.path));
  return { primary: name, secondary: parts.join(' · '), capabilities: text(d.capabilities) };
}

/** Who asked: the origin's host (and the site around a frame), never anything the page wrote. */
export function siteText(entry) {
  const host = (origin) => {
    try { return new URL(origin).host || origin; } catch (_) { return origin; }
  };
  const origin = text(entry.origin);
  if (!origin) return 'an unknown site';
  return text(entry.topOrigin) ? `${host(origin)} in ${host(text(entry.topOrigin))}` : host(origin);
}

/** How a request ended, in words, and the class the row's colour follows. */
export function outcomeText(entry) {
  const detail = text(entry.detail);
  switch (entry.outcome) {
    case 'ok': return { text: DONE[entry.type] || 'Done', tone: 'ok' };
    case 'error': {
      // The bridge's own reason when it has one ("PIN entry was cancelled"), else what the error name means.
      const why = text(entry.reason).replace(/\.$/, '') || ERROR_TEXT[detail] || 'Failed';
      return { text: `${why} (${detail || 'error'})`, tone: 'error' };
    }
    case 'aborted': return { text: 'Aborted by the site', tone: 'other' };
    case 'browser': return { text: `Left to the browser's own WebAuthn: ${BROWSER_TEXT[detail] || detail || 'no host'}`, tone: 'other' };
    default: return { text: 'Unknown', tone: 'other' };
  }
}

/** HH:MM:SS in local time. */
export function timeText(time) {
  const d = new Date(time);
  if (!Number.isFinite(d.getTime())) return '';
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** One list item with a bold first line, a muted second line, an optional third (`note`), and an optional time
 *  on the right. */
function item(doc, primary, secondary, { time = '', tone = '', note = '' } = {}) {
  const li = doc.createElement('li');
  const row = doc.createElement('div');
  row.className = 'row';
  const first = doc.createElement('span');
  first.className = 'primary';
  first.textContent = primary;
  row.append(first);
  if (time) {
    const when = doc.createElement('span');
    when.className = 'time';
    when.textContent = time;
    row.append(when);
  }
  const second = doc.createElement('div');
  second.className = tone ? 'secondary outcome' : 'secondary';
  if (tone) second.dataset.outcome = tone;
  second.textContent = secondary;
  li.append(row, second);
  if (note) {
    const third = doc.createElement('div');
    third.className = 'note';
    third.textContent = note;
    li.append(third);
  }
  return li;
}

function empty(doc, words) {
  const li = doc.createElement('li');
  li.className = 'empty';
  li.textContent = words;
  return li;
}

/** Fills popup.html's elements from a status answer ({state, reason, detail, info, history}). */
export function render(doc, status) {
  const summary = hostSummary(status);
  doc.getElementById('mark').src = summary.state === 'unavailable' ? '../icons/icon-off-32.png' : '../icons/icon-32.png';
  const badge = doc.getElementById('state');
  badge.dataset.state = summary.state;
  badge.textContent = summary.label;
  doc.getElementById('host').textContent = summary.line;

  const keys = doc.getElementById('keys');
  const devices = status && status.info && Array.isArray(status.info.devices) ? status.info.devices : null;
  keys.replaceChildren();
  if (summary.state !== 'connected') keys.append(empty(doc, 'Unknown while the host is not connected.'));
  else if (!devices) keys.append(empty(doc, 'Asking the host…'));
  else if (devices.length === 0) keys.append(empty(doc, 'None plugged in.'));
  for (const device of summary.state === 'connected' && devices ? devices : []) {
    const lines = keyLines(device);
    keys.append(item(doc, lines.primary, lines.secondary, { note: lines.capabilities }));
  }

  const list = doc.getElementById('requests');
  const history = status && Array.isArray(status.history) ? status.history : [];
  list.replaceChildren();
  if (history.length === 0) list.append(empty(doc, 'None since the browser started.'));
  for (const entry of history) {
    const outcome = outcomeText(entry);
    const what = `${TYPE_LABELS[entry.type] || 'Request'} · ${siteText(entry)}`;
    list.append(item(doc, what, outcome.text, { time: timeText(entry.time), tone: outcome.tone }));
  }
}
