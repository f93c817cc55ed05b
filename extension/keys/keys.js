/*
 * keys.js — the Security keys page (keys.html), opened from the toolbar popup or from the security-key window when a
 * key is full: picks a key, shows its facts, lists its passkeys by site and user, deletes and renames them. Every
 * change is confirmed here first, then by the PIN in the host's PIN dialog (and, for a deletion, a touch of the
 * key); nothing typed on this page is a PIN. Its connection to the host is its own (session.js).
 *
 * The document's data-state says what the page is doing ("starting", "ready", "busy"), for the tests to wait on.
 */
import { HOST_NAME, createKeySession } from './session.js';
import { deleteQuestion, groupBySite, infoRows, keyLabel, passkeyLines, slotsText, waitText } from './view.js';

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
let listing = null;     // its `passkeys` answer, kept in step with deletions and renames

function setState(state) {
  document.documentElement.dataset.state = state;
  const busy = state !== 'ready';
  for (const button of document.querySelectorAll('main > section button')) button.disabled = busy || 'unavailable' in button.dataset;
  $('key').disabled = busy;
  $('show').disabled = busy || !canList();
}

function canList() {
  return Boolean(key) && key.credentialManagement !== 'none' && key.pin === 'set';
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
    say('done', doneWords);
  } catch (error) {
    say('problem', error && error.message ? error.message : String(error));
  } finally {
    $('wait').hidden = true;
    if (document.documentElement.dataset.state !== 'closed') setState('ready');
  }
}

function renderKeys() {
  const select = $('key');
  select.replaceChildren(...devices.map((d) => new Option(keyLabel(d, devices), d.path)));
  $('choose').hidden = devices.length < 2;
  $('no-key').hidden = devices.length > 0;
}

function renderFacts() {
  $('facts').replaceChildren(...(key ? infoRows(key) : []).flatMap(([label, value]) => {
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = label;
    dd.textContent = value;
    return [dt, dd];
  }));
}

function passkeyItem(p) {
  const li = document.createElement('li');
  const lines = passkeyLines(p);
  const who = document.createElement('div');
  who.className = 'who';
  const name = document.createElement('strong');
  const details = document.createElement('span');
  name.textContent = lines.who;
  details.textContent = lines.details;
  who.append(name, details);
  const rename = document.createElement('button');
  rename.type = 'button';
  rename.textContent = 'Edit';
  rename.setAttribute('aria-label', `Edit the passkey for ${lines.who}`);
  if (key.credentialManagement !== 'full') rename.dataset.unavailable = 'preview';   // 2.1-PRE cannot rename
  rename.disabled = 'unavailable' in rename.dataset;
  rename.addEventListener('click', (event) => event.isTrusted && askRename(p));
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'danger';
  remove.textContent = 'Delete';
  remove.setAttribute('aria-label', `Delete the passkey for ${lines.who}`);
  remove.addEventListener('click', (event) => event.isTrusted && askDelete(p));
  li.append(who, rename, remove);
  li.dataset.credentialId = p.credentialId;
  return li;
}

function renderPasskeys() {
  $('slots').hidden = !listing;
  $('slots').textContent = listing ? slotsText(listing) : '';
  const groups = listing ? groupBySite(listing.passkeys) : [];
  $('sites').replaceChildren(...groups.map((group) => {
    const section = document.createElement('section');
    const heading = document.createElement('h3');
    heading.textContent = group.rpName && group.rpName !== group.rpId ? `${group.rpId} (${group.rpName})` : group.rpId;
    const list = document.createElement('ul');
    list.className = 'passkeys';
    list.append(...group.passkeys.map(passkeyItem));
    section.append(heading, list);
    return section;
  }));
  if (listing && groups.length === 0) {
    const none = document.createElement('p');
    none.className = 'hint';
    none.textContent = 'No passkeys on this security key.';
    $('sites').append(none);
  }
}

async function chooseKey(path) {
  current = path;
  key = null;
  listing = null;
  renderPasskeys();
  await busy(async () => {
    key = await session.keyInfo(path);
    renderFacts();
  });
  if (key && !canList()) {
    say('problem', key.credentialManagement === 'none'
      ? 'This security key cannot list its passkeys (it has no credential management).'
      : 'Set a PIN on this security key to see its passkeys.');
  }
}

async function loadKeys() {
  await busy(async () => { devices = await session.keys(); });
  renderKeys();
  if (devices.length > 0) await chooseKey(devices[0].path);
}

function askDelete(p) {
  $('confirm-text').textContent = deleteQuestion(p);
  $('confirm').dataset.credentialId = p.credentialId;
  $('confirm').showModal();
}

function askRename(p) {
  $('rename-site').textContent = p.rpId;
  $('rename-name').value = p.userName || '';
  $('rename-display').value = p.userDisplayName || '';
  $('rename').dataset.credentialId = p.credentialId;
  $('rename').showModal();
}

const chosen = (dialog) => listing && listing.passkeys.find((p) => p.credentialId === dialog.dataset.credentialId);

$('confirm-delete').addEventListener('click', (event) => {
  const p = chosen($('confirm'));
  $('confirm').close();
  if (!event.isTrusted || !p) return;
  busy(async () => {
    await session.deletePasskey(current, p);
    listing.passkeys = listing.passkeys.filter((q) => q !== p);
    listing.slotsUsed -= 1;
    if (Number.isInteger(listing.slotsLeft)) listing.slotsLeft += 1;
    renderPasskeys();
  }, `Deleted the passkey for ${passkeyLines(p).who} on ${p.rpId}.`);
});

$('rename-save').addEventListener('click', (event) => {
  const p = chosen($('rename'));
  const name = $('rename-name').value.trim();
  const displayName = $('rename-display').value.trim();
  $('rename').close();
  if (!event.isTrusted || !p) return;
  busy(async () => {
    await session.renamePasskey(current, p, name || null, displayName || null);
    p.userName = name || undefined;
    p.userDisplayName = displayName || undefined;
    renderPasskeys();
  }, 'Saved.');
});

$('confirm-cancel').addEventListener('click', () => $('confirm').close());
$('rename-cancel').addEventListener('click', () => $('rename').close());
$('stop').addEventListener('click', () => session.cancel());
$('rescan').addEventListener('click', () => loadKeys());
$('key').addEventListener('change', () => chooseKey($('key').value));
$('show').addEventListener('click', () => busy(async () => {
  listing = await session.passkeys(current);
  renderPasskeys();
}));

setState('starting');
session.open().then(loadKeys, () => { /* onClosed said why */ });
