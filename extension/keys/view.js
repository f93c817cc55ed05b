/*
 * view.js — what the Security keys page (keys.html, wired by keys.js) shows: the keys plugged in, one key's facts
 * (name, AAGUID, versions, PIN and its attempts left), its passkeys by site and user with what each holds, and a
 * line saying what the host waits for. Worded as Chromium's settings word them ("Sign-in data", "Security keys").
 *
 * Names come from the key (user and site names a site chose): they go into the DOM as textContent only, without
 * control or format characters (prompt/view.js plainText), so none can read as another name.
 */
import { detailText, plainText, statusText } from '../prompt/view.js';

const CRED_PROTECT = {
  1: 'Can be used without a PIN',
  2: 'Needs a PIN unless the site names it',
  3: 'Always needs a PIN',
};
const MANAGEMENT = {
  full: 'Listed, deleted and renamed here',
  preview: 'Listed and deleted here (this key cannot rename them)',
  none: 'Not listed: this key has no credential management',
};
const PIN = { set: 'Set', 'not-set': 'Not set', unsupported: 'Not supported by this key' };

function text(value) {
  return typeof value === 'string' ? value : '';
}

/** A key in the picker: its name (the host's discovery), and its path when two keys share a name. */
export function keyLabel(device, all = []) {
  const name = text(device && device.product) || text(device && device.path) || 'Unnamed key';
  const twins = all.filter((d) => text(d && d.product) === text(device && device.product)).length > 1;
  return twins ? `${name} (${text(device.path)})` : name;
}

/** "Set · 8 attempts left" — the PIN line of a key's facts. */
export function pinText(key) {
  const state = Object.prototype.hasOwnProperty.call(PIN, key.pin) ? PIN[key.pin] : 'Unknown';
  const left = Number.isInteger(key.pinRetries) ? ` · ${key.pinRetries} attempt${key.pinRetries === 1 ? '' : 's'} left` : '';
  return state + left;
}

/** The facts of one key (the host's `key-info`), as [label, value] rows. */
export function infoRows(key) {
  const k = key && typeof key === 'object' ? key : {};
  const list = (value) => (Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(', ') : '');
  const rows = [
    ['Name', text(k.product) || 'Unnamed key'],
    ['Kind', [text(k.kind), text(k.manufacturer)].filter(Boolean).join(' · ')],
    ['AAGUID', text(k.aaguid) || 'None (a U2F key)'],
    ['Versions', list(k.versions)],
    ['PIN', pinText(k)],
  ];
  if (Number.isInteger(k.minPinLength)) rows.push(['Minimum PIN length', String(k.minPinLength)]);
  if (Number.isInteger(k.uvRetries)) rows.push(['Fingerprint attempts left', String(k.uvRetries)]);
  rows.push(['Passkeys', MANAGEMENT[k.credentialManagement] || MANAGEMENT.none]);
  rows.push(['Can do', text(k.summary)]);
  return rows.filter(([, value]) => value);
}

/** The site a passkey is for, as shown: its rp.id as the key holds it (any client may have written it). */
export function siteOf(p) {
  return plainText(p && p.rpId);
}

/** The passkeys (the host's `passkeys` answer) grouped by site in the key's order. */
export function groupBySite(passkeys) {
  const groups = [];
  for (const p of Array.isArray(passkeys) ? passkeys : []) {
    const last = groups[groups.length - 1];
    if (last && last.rpId === siteOf(p)) last.passkeys.push(p);
    else groups.push({ rpId: siteOf(p), rpName: plainText(p.rpName), passkeys: [p] });
  }
  return groups;
}

/** A passkey's two lines: who (display name, then user name), then what it holds. */
export function passkeyLines(p) {
  const name = plainText(p.userName);
  const display = plainText(p.userDisplayName);
  const who = display && display !== name ? `${display} (${name || 'no user name'})` : name || display || 'Unnamed account';
  const id = text(p.credentialId);
  const shortId = id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id;
  const parts = [`ID ${shortId}`, CRED_PROTECT[p.credProtect] || 'Protection level not given'];
  if (p.largeBlob === true) parts.push('Large blob');
  return { who, details: parts.join(' · ') };
}

/** "3 passkeys · room for 22 more" */
export function slotsText(listing) {
  const used = Number.isInteger(listing.slotsUsed) ? listing.slotsUsed : 0;
  const left = Number.isInteger(listing.slotsLeft) ? listing.slotsLeft : null;
  const count = `${used} passkey${used === 1 ? '' : 's'}`;
  return left === null ? count : `${count} · room for ${left} more`;
}

// What the host waits for where the page words it otherwise than the security-key window (no site asks here).
const WAITS = {
  'set-pin': 'Enter the new PIN twice in the PIN dialog.',
  touch: 'Touch your security key to confirm.',
};

// What the reader said of a fingerprint sample (CTAP 2.1 lastEnrollSampleStatus, by its spec name).
const SAMPLES = {
  FP_GOOD: 'Good.',
  FP_TOO_HIGH: 'Place your finger lower.',
  FP_TOO_LOW: 'Place your finger higher.',
  FP_TOO_LEFT: 'Move your finger to the right.',
  FP_TOO_RIGHT: 'Move your finger to the left.',
  FP_TOO_FAST: 'Your finger moved too fast: hold it still.',
  FP_TOO_SLOW: 'Your finger moved too slowly.',
  FP_POOR_QUALITY: 'Poor sample: clean and dry your finger and the sensor.',
  FP_TOO_SKEWED: 'Place your finger straight.',
  FP_TOO_SHORT: 'Touch a little longer.',
  FP_MERGE_FAILURE: 'That touch did not match the others: try again.',
  FP_EXISTS: 'This finger is enrolled already.',
  NO_USER_ACTIVITY: 'No finger was felt.',
  NO_UP_TRANSITION: 'Lift your finger between touches.',
};

/** A fingerprint enrollment's line: what the last touch gave, and how many more the key wants. */
export function sampleText({ samplesLeft, sample }) {
  const said = sample === null || sample === undefined ? '' : `${SAMPLES[sample] || 'The reader did not take it.'} `;
  if (samplesLeft === 0) return `${said}Done.`;
  const more = Number.isInteger(samplesLeft) ? ` (${samplesLeft} more)` : '';
  return `${said}Touch the fingerprint sensor${sample ? ' again' : ''}${more}.`;
}

/** What the host waits for (`pin`, `set-pin`, `touch`, a finger), with the attempts left after a wrong PIN. */
export function waitText({ status, attemptsLeft, samplesLeft = null, sample = null }) {
  if (status === 'enroll-fingerprint') return sampleText({ samplesLeft, sample });
  const line = detailText(status, '', attemptsLeft);
  const text = Object.prototype.hasOwnProperty.call(WAITS, status) ? WAITS[status] : statusText(status);
  return line ? `${text} ${line}` : text;
}

/** Which of the owner's sections and controls a key offers (its `key-info`). */
export function settingsState(key) {
  const k = key && typeof key === 'object' ? key : {};
  const options = k.options && typeof k.options === 'object' ? k.options : {};
  const fido2 = Array.isArray(k.versions) && k.versions.some((v) => typeof v === 'string' && v.startsWith('FIDO_2'));
  const settings = options.authnrCfg === true;
  return {
    pin: Boolean(key) && k.pin !== 'unsupported',
    canCreatePIN: k.pin === 'not-set',
    canChangePIN: k.pin === 'set',
    settings,
    alwaysUV: settings && 'alwaysUv' in options,
    alwaysUVOn: options.alwaysUv === true,
    minPINLength: settings && options.setMinPINLength === true,
    minimum: Math.max(4, Number.isInteger(k.minPinLength) ? k.minPinLength : 4),
    forcePINChange: settings && options.setMinPINLength === true && k.pin === 'set',
    reset: Boolean(key) && fido2,
  };
}

/** The confirmation a reset asks in the page before the touch on the key. */
export function resetQuestion(key) {
  const name = key && typeof key.product === 'string' && key.product ? key.product : 'this security key';
  return `Reset ${name}? Every passkey on it, its PIN and its fingerprints are deleted, and sites will no longer `
    + 'accept it. This cannot be undone. Then touch your key (within 10 seconds of plugging it in).';
}

/** A button of a list row: `label` shown, `description` its accessible name, `action` on a trusted click only. */
export function rowButton(doc, label, description, action, className = '') {
  const b = doc.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (className) b.className = className;
  b.setAttribute('aria-label', description);
  b.addEventListener('click', (event) => { if (event.isTrusted) action(); });
  return b;
}

/** The confirmation a deletion asks in the page before the PIN and the touch on the key. */
export function deleteQuestion(p) {
  return `Delete the passkey for ${passkeyLines(p).who} on ${siteOf(p)}? You will no longer be able to sign in `
    + 'to that account with this security key. Then enter your PIN and touch your key.';
}
