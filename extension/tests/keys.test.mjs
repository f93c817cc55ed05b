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
  assert.deepEqual(statuses, [{ status: 'pin', attemptsLeft: null }, { status: 'pin', attemptsLeft: 7 }]);
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
  assert.equal(view.keyLabel({ product: 'SoftToken', path: '/a' }, [{ product: 'SoftToken', path: '/a' },
    { product: 'SoftToken', path: '/b' }]), 'SoftToken (/a)');
});
