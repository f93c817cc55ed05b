// The Security keys page's logic (keys/session.js, keys/view.js): its own connection to the host, opened with
// `manage`; frames whose fields cannot change their id or type; statuses; errors in the host's words; what the
// page shows of a key and its passkeys, names from a site without control or format characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import shared from '../common/protocol-constants.js';
import { createKeySession } from '../keys/session.js';
import * as view from '../keys/view.js';

function fakePort() {
  const port = { sent: [], message: [], disconnect: [] };
  port.postMessage = (frame) => port.sent.push(structuredClone(frame));
  port.onMessage = { addListener: (fn) => port.message.push(fn) };
  port.onDisconnect = { addListener: (fn) => port.disconnect.push(fn) };
  port.reply = (frame) => port.message.forEach((fn) => fn(frame));
  port.drop = () => port.disconnect.forEach((fn) => fn(port));
  return port;
}

function session(port = fakePort()) {
  const statuses = [];
  const closed = [];
  const keys = createKeySession({ connectNative: () => port, disconnectError: () => 'Native host has exited.',
    onStatus: (s) => statuses.push(s), onClosed: (r) => closed.push(r) });
  return { keys, port, statuses, closed };
}

test('the page\'s connection opens with manage, then asks for the keys on the same port', async () => {
  const { keys, port } = session();
  const opened = keys.open();
  assert.deepEqual(port.sent, [{ id: 'keys-1', type: 'manage' }]);
  port.reply({ id: 'keys-1', type: 'result', manage: { protocol: 1 } });
  await opened;
  const listed = keys.keys();
  assert.deepEqual(port.sent[1], { id: 'keys-2', type: 'info' });
  port.reply({ id: 'keys-2', type: 'result', info: { devices: [{ path: '/dev/hidraw3', product: 'YubiKey' }] } });
  assert.deepEqual(await listed, [{ path: '/dev/hidraw3', product: 'YubiKey' }]);
});

test('every frame the page sends is a shared key request type, and no field can replace its id or type', async () => {
  const { keys, port } = session();
  keys.open();
  const passkey = { credentialId: 'AAEC', userId: 'dXNlcg', id: 'forged', type: 'create' };
  keys.keyInfo('/dev/hidraw3');
  keys.passkeys('/dev/hidraw3');
  keys.deletePasskey('/dev/hidraw3', passkey);
  keys.renamePasskey('/dev/hidraw3', passkey, 'alice', null);
  const types = port.sent.map((f) => f.type);
  assert.deepEqual(types, ['manage', 'key-info', 'passkeys', 'passkey-delete', 'passkey-rename']);
  assert.ok(types.every((t) => shared.keyRequestTypes.includes(t)));
  assert.deepEqual(port.sent[3], { device: '/dev/hidraw3', credentialId: 'AAEC', id: 'keys-4', type: 'passkey-delete' });
  assert.deepEqual(port.sent[4], { device: '/dev/hidraw3', credentialId: 'AAEC', userId: 'dXNlcg', name: 'alice',
    displayName: null, id: 'keys-5', type: 'passkey-rename' });
  assert.equal(new Set(port.sent.map((f) => f.id)).size, port.sent.length);
});

test('statuses of the request in flight reach the wait line; the error names the host\'s reason', async () => {
  const { keys, port, statuses } = session();
  keys.open();
  const deleting = keys.deletePasskey('/dev/hidraw3', { credentialId: 'AAEC' });
  port.reply({ id: 'keys-2', type: 'status', status: 'pin' });
  port.reply({ id: 'keys-2', type: 'status', status: 'pin', attemptsLeft: 7 });
  port.reply({ id: 'other', type: 'status', status: 'touch' });   // not ours: dropped
  port.reply({ id: 'keys-2', type: 'error', error: { name: 'NotAllowedError', message: 'The operation either…' },
    detail: 'Too many wrong PINs in a row: remove and reinsert the security key, then try again.' });
  await assert.rejects(deleting, { name: 'NotAllowedError', message: /remove and reinsert/ });
  assert.deepEqual(statuses, [{ status: 'pin', attemptsLeft: null, samplesLeft: null, sample: null },
    { status: 'pin', attemptsLeft: 7, samplesLeft: null, sample: null }]);
  assert.equal(view.waitText(statuses[1]), 'Enter your PIN in the dialog. Wrong PIN. 7 attempts left.');
});

test('a host that goes away fails what was pending and every later request', async () => {
  const { keys, port, closed } = session();
  const opened = keys.open();
  port.drop();
  await assert.rejects(opened, { name: 'HostGone', message: 'Native host has exited.' });
  await assert.rejects(keys.passkeys('/dev/hidraw3'), { name: 'HostGone' });
  assert.deepEqual(closed, ['Native host has exited.']);
  assert.equal(port.sent.length, 1);
});

test('cancel reaches the request the host runs', () => {
  const { keys, port } = session();
  keys.open();
  keys.passkeys('/dev/hidraw3');
  keys.cancel();
  assert.deepEqual(port.sent.slice(-2), [{ id: 'keys-1', type: 'cancel' }, { id: 'keys-2', type: 'cancel' }]);
});

test('a key\'s facts: PIN state with attempts, AAGUID, versions, what the page can do with its passkeys', () => {
  const rows = Object.fromEntries(view.infoRows({ product: 'YubiKey 5', kind: 'security key', manufacturer: 'Yubico',
    aaguid: 'ee882879-721c-4913-9775-3dfcce97072a', versions: ['U2F_V2', 'FIDO_2_0', 'FIDO_2_1_PRE'], pin: 'set',
    pinRetries: 1, credentialManagement: 'preview', summary: 'CTAP 2.0 and U2F, passkeys, PIN set' }));
  assert.equal(rows.PIN, 'Set · 1 attempt left');
  assert.equal(rows.AAGUID, 'ee882879-721c-4913-9775-3dfcce97072a');
  assert.equal(rows.Versions, 'U2F_V2, FIDO_2_0, FIDO_2_1_PRE');
  assert.match(rows.Passkeys, /cannot rename/);
  assert.equal(view.pinText({ pin: 'not-set' }), 'Not set');
  assert.equal(view.pinText({ pin: 'unsupported' }), 'Not supported by this key');
});

test('passkeys by site in the key\'s order, each with who and what it holds; slots in words', () => {
  const passkeys = [
    { rpId: 'example.com', userName: 'alice', credentialId: 'A'.repeat(43), credProtect: 1, largeBlob: false },
    { rpId: 'example.com', userName: 'bob', userDisplayName: 'Bob B.', credentialId: 'Bb', credProtect: 3, largeBlob: true },
    { rpId: 'other.example', rpName: 'Other', credentialId: 'Cc', credProtect: 0 },
  ];
  const groups = view.groupBySite(passkeys);
  assert.deepEqual(groups.map((g) => [g.rpId, g.passkeys.length]), [['example.com', 2], ['other.example', 1]]);
  assert.deepEqual(view.passkeyLines(passkeys[0]), { who: 'alice', details: 'ID AAAAAAAA…AAAAAA · Can be used without a PIN' });
  assert.deepEqual(view.passkeyLines(passkeys[1]), { who: 'Bob B. (bob)', details: 'ID Bb · Always needs a PIN · Large blob' });
  assert.equal(view.passkeyLines(passkeys[2]).who, 'Unnamed account');
  assert.equal(view.slotsText({ slotsUsed: 1, slotsLeft: 24 }), '1 passkey · room for 24 more');
  assert.match(view.deleteQuestion(passkeys[1]), /^Delete the passkey for Bob B\. \(bob\) on example\.com\?/);
});

test('names a site chose lose their control and format characters: no right-to-left override reads as another', () => {
  const lines = view.passkeyLines({ rpId: 'evil.example', userName: 'admin\u202Emoc.elgoog', credentialId: 'x' });
  assert.equal(lines.who, 'adminmoc.elgoog');
  // The key holds whatever rp.id a client wrote (OpenSSH's "ssh:…", a client that checks nothing).
  const spoofed = [{ rpId: '\u202Emoc.elgoog', userName: 'a', credentialId: 'x' }, { rpId: '\u202Emoc.elgoog', credentialId: 'y' }];
  assert.deepEqual(view.groupBySite(spoofed).map((g) => [g.rpId, g.passkeys.length]), [['moc.elgoog', 2]]);
  assert.match(view.deleteQuestion(spoofed[0]), / on moc\.elgoog\?/);
  assert.equal(view.keyLabel({ product: 'SoftToken', path: '/a' }, [{ product: 'SoftToken', path: '/a' },
    { product: 'SoftToken', path: '/b' }]), 'SoftToken (/a)');
});

test('the owner\'s frames: PIN, settings, reset and fingerprints carry only the device and what the page chose', () => {
  const { keys, port } = session();
  keys.open();
  keys.setPIN('/dev/hidraw3');
  keys.changePIN('/dev/hidraw3');
  keys.configure('/dev/hidraw3', 'min-pin-length', 6);
  keys.reset('/dev/hidraw3');
  keys.fingerprints('/dev/hidraw3');
  keys.renameFingerprint('/dev/hidraw3', 'AQ', 'Left thumb');
  keys.deleteFingerprint('/dev/hidraw3', 'AQ');
  assert.deepEqual(port.sent.slice(1).map(({ id, ...frame }) => frame), [
    { device: '/dev/hidraw3', type: 'pin-set' },
    { device: '/dev/hidraw3', type: 'pin-change' },
    { device: '/dev/hidraw3', setting: 'min-pin-length', value: 6, type: 'key-config' },
    { device: '/dev/hidraw3', type: 'key-reset' },
    { device: '/dev/hidraw3', type: 'fingerprints' },
    { device: '/dev/hidraw3', templateId: 'AQ', name: 'Left thumb', type: 'fingerprint-rename' },
    { device: '/dev/hidraw3', templateId: 'AQ', type: 'fingerprint-delete' },
  ]);
  assert.ok(port.sent.every((f) => shared.keyRequestTypes.includes(f.type)));
  assert.ok(port.sent.every((f) => !('pin' in f)), 'no frame carries a PIN');
});

test('which owner controls a key offers: PIN create or change, settings by its options, reset for FIDO2 keys', () => {
  const softToken = { versions: ['FIDO_2_0', 'FIDO_2_1'], pin: 'set', minPinLength: 4,
    options: { authnrCfg: true, alwaysUv: false, setMinPINLength: true, clientPin: true } };
  assert.deepEqual(view.settingsState(softToken), { pin: true, canCreatePIN: false, canChangePIN: true, settings: true,
    alwaysUV: true, alwaysUVOn: false, minPINLength: true, minimum: 4, forcePINChange: true, reset: true });
  const bare = view.settingsState({ versions: ['FIDO_2_0'], pin: 'not-set', options: { clientPin: false } });
  assert.deepEqual([bare.canCreatePIN, bare.canChangePIN, bare.settings, bare.reset], [true, false, false, true]);
  const u2f = view.settingsState({ versions: ['U2F_V2'], pin: 'unsupported', options: {} });
  assert.deepEqual([u2f.pin, u2f.reset], [false, false]);
  assert.equal(view.settingsState(null).reset, false);
  assert.match(view.resetQuestion({ product: 'YubiKey 5' }), /^Reset YubiKey 5\? Every passkey on it, its PIN and its fingerprints/);
  assert.equal(view.waitText({ status: 'set-pin', attemptsLeft: null }), 'Enter the new PIN twice in the PIN dialog.');
  assert.equal(view.waitText({ status: 'touch', attemptsLeft: null }), 'Touch your security key to confirm.');
});

test('every element the page\'s modules look up by id is in keys.html, once', async () => {
  const { readFile } = await import('node:fs/promises');
  const dir = new URL('../keys/', import.meta.url);
  const html = await readFile(new URL('keys.html', dir), 'utf8');
  const declared = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(declared).size, declared.length, 'an id is declared twice');
  for (const file of ['keys.js', 'passkeys.js', 'owner.js', 'fingerprints.js']) {
    const source = await readFile(new URL(file, dir), 'utf8');
    for (const [, id] of source.matchAll(/\$\('([^']+)'\)/g)) assert.ok(declared.includes(id), `${file}: #${id} is not in keys.html`);
  }
});

test('a fingerprint enrollment: each sample in words, with the touches left; the frame carries only the name', () => {
  const { keys, port, statuses } = session();
  keys.open();
  keys.addFingerprint('/dev/hidraw3', 'Left thumb');
  assert.deepEqual(port.sent[1], { device: '/dev/hidraw3', name: 'Left thumb', id: 'keys-2', type: 'fingerprint-add' });
  port.reply({ id: 'keys-2', type: 'status', status: 'enroll-fingerprint' });
  port.reply({ id: 'keys-2', type: 'status', status: 'enroll-fingerprint', samplesLeft: 3, sample: 'FP_TOO_FAST' });
  port.reply({ id: 'keys-2', type: 'status', status: 'enroll-fingerprint', samplesLeft: 0, sample: 'FP_GOOD' });
  assert.deepEqual(statuses.map(view.waitText), [
    'Touch the fingerprint sensor.',
    'Your finger moved too fast: hold it still. Touch the fingerprint sensor again (3 more).',
    'Good. Done.',
  ]);
  assert.equal(view.sampleText({ samplesLeft: 2, sample: 'FP_SOMETHING_NEW' }),
    'The reader did not take it. Touch the fingerprint sensor again (2 more).');
});
