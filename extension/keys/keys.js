/*
 * keys.js — the Security keys page (keys.html), opened from the toolbar popup or from the security-key window when a
 * key is full: picks a key and shows its facts; its sections (passkeys.js, owner.js, fingerprints.js) change what is
 * on it. Every deletion or reset is confirmed here first (confirm()), a rename made in a dialog of its own (both
 * dialogs.js: a press too soon or repeated never acts), then by the PIN in the host's PIN dialog, and for a deletion
 * or a reset by a touch of the key; nothing typed on this page is a PIN. Its connection to the host is its
 * own (session.js).
 *
 * The document's data-state says what the page is doing ("starting", "ready", "busy", "closed"), for the tests.
 */
import { createDialogs } from './dialogs.js';
import { createFingerprintsSection } from './fingerprints.js';
import { createOwnerSection } from './owner.js';
import { createPasskeysSection } from './passkeys.js';
import { HOST_NAME, createKeySession } from './session.js';
import { infoRows, keyLabel, waitText } from './view.js';

const ext = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);

const session = createKeySession({
  connectNative: () => ext.runtime.connectNative(HOST_NAME),
  disconnectError: (port) => (port && port.error && port.error.message) || (ext.runtime.lastError && ext.runtime.lastError.message) || '',
  onStatus: (status) => { $('wait-text').textContent = waitText(status); },
  onClosed: (reason) => {
    say('problem', `The webauthn-bridge host is not reachable: ${reason || 'it stopped'}. Run \`webauthn-bridge doctor\`.`);
    setState('closed');
  },
});

let devices = [];
let current = null;     // the chosen key's path
let key = null;         // its `key-info`

const dialogs = createDialogs(document, { now: () => performance.now() }, {
  confirm: { dialog: 'confirm', commit: 'confirm-do', cancel: 'confirm-cancel' },
  rename: { dialog: 'rename', commit: 'rename-save', cancel: 'rename-cancel' },
  'finger-rename': { dialog: 'finger-rename', commit: 'finger-save', cancel: 'finger-cancel' },
});

function setState(state) {
  document.documentElement.dataset.state = state;
  const busyNow = state !== 'ready';
  for (const control of document.querySelectorAll('main > section button, main > section input')) {
    control.disabled = busyNow || 'unavailable' in control.dataset;
  }
  $('key').disabled = busyNow;
}

/** One of the page's message lines (`problem`, `done`); the other is cleared. */
function say(which, words) {
  for (const id of ['problem', 'done']) {
    $(id).hidden = id !== which || !words;
    $(id).textContent = id === which ? words : '';
  }
}

/** Runs one host request: the page busy meanwhile, the wait line showing what the host asks of the user. */
async function busy(work, doneWords = '') {
  say('done', '');
  setState('busy');
  $('wait-text').textContent = 'Working with your security key…';
  $('wait').hidden = false;
  try {
    await work();
    say('done', typeof doneWords === 'function' ? doneWords() : doneWords);
  } catch (error) {
    say('problem', error && error.message ? error.message : String(error));
  } finally {
    $('wait').hidden = true;
    if (document.documentElement.dataset.state !== 'closed') setState('ready');
  }
}

/** The page's confirmation (a modal dialog): `action` runs only on a press of its button that counts. */
function confirm(question, label, action) {
  $('confirm-text').textContent = question;
  $('confirm-do').textContent = label;
  dialogs.open('confirm', action);
}

/** A key's facts after a change the host made (its `key` answer): every section follows them. */
function showKey(info) {
  key = info;
  $('facts').replaceChildren(...(key ? infoRows(key) : []).flatMap(([label, value]) => {
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = label;
    dd.textContent = value;
    return [dt, dd];
  }));
  for (const section of sections) section.show(key);
  setState(document.documentElement.dataset.state === 'ready' ? 'ready' : document.documentElement.dataset.state);
}

const page = { session, busy, say, confirm, openDialog: dialogs.open, showKey, device: () => current, key: () => key };
const sections = [createPasskeysSection(page), createOwnerSection(page), createFingerprintsSection(page)];

async function chooseKey(path) {
  current = path;
  showKey(null);
  await busy(async () => showKey(await session.keyInfo(path)));
}

async function loadKeys() {
  await busy(async () => { devices = await session.keys(); });
  $('key').replaceChildren(...devices.map((d) => new Option(keyLabel(d, devices), d.path)));
  $('choose').hidden = devices.length < 2;
  $('no-key').hidden = devices.length > 0;
  if (devices.length > 0) await chooseKey(devices[0].path);
}

$('stop').addEventListener('click', () => session.cancel());
$('rescan').addEventListener('click', () => loadKeys());
$('key').addEventListener('change', () => chooseKey($('key').value));

setState('starting');
session.open().then(loadKeys, () => { /* onClosed said why */ });
