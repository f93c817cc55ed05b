// Host `result`/`error` frames → page objects (page/codec.js buildCredential/buildError).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const codec = require('../page/codec.js');

// Stand-ins for the page's interfaces: native ones have throwing getters on the prototype ("Illegal
// invocation"), which is exactly what own properties must shadow.
function illegal() { throw new TypeError('Illegal invocation'); }
class PublicKeyCredential {}
class AuthenticatorResponse {}
class AuthenticatorAttestationResponse extends AuthenticatorResponse {}
class AuthenticatorAssertionResponse extends AuthenticatorResponse {}
for (const name of ['id', 'rawId', 'type', 'response', 'authenticatorAttachment']) {
  Object.defineProperty(PublicKeyCredential.prototype, name, { get: illegal, configurable: true });
}
for (const name of ['clientDataJSON']) Object.defineProperty(AuthenticatorResponse.prototype, name, { get: illegal });
Object.defineProperty(AuthenticatorAttestationResponse.prototype, 'attestationObject', { get: illegal });
for (const name of ['authenticatorData', 'signature', 'userHandle']) {
  Object.defineProperty(AuthenticatorAssertionResponse.prototype, name, { get: illegal });
}
PublicKeyCredential.prototype.toJSON = illegal;
PublicKeyCredential.prototype.getClientExtensionResults = illegal;
AuthenticatorAttestationResponse.prototype.getPublicKey = illegal;
const env = { PublicKeyCredential, AuthenticatorAttestationResponse, AuthenticatorAssertionResponse, DOMException, TypeError };

const b = (hex) => ({ __binary__: Buffer.from(hex, 'hex').toString('base64url') });
const u8 = (buf) => Buffer.from(new Uint8Array(buf)).toString('hex');
const b64 = (hex) => Buffer.from(hex, 'hex').toString('base64url');

const SPKI = '3059301306072a8648ce3d020106082a8648ce3d03010703420004' + 'ab'.repeat(64);
const createFrame = {
  type: 'public-key', id: b64('c0ffee'), rawId: b('c0ffee'), authenticatorAttachment: 'cross-platform',
  response: {
    clientDataJSON: b('7b7d'), attestationObject: b('a0a1'), authenticatorData: b('d00d'), transports: ['usb', 'nfc'],
    publicKey: b(SPKI), publicKeyAlgorithm: -7,
  },
  clientExtensionResults: { credProps: { rk: true }, prf: { enabled: true } },
};
const getFrame = {
  type: 'public-key', id: b64('0102'), rawId: b('0102'), authenticatorAttachment: 'cross-platform',
  response: { clientDataJSON: b('7b7d'), authenticatorData: b('aaaa'), signature: b('3045'), userHandle: b('75'), },
  clientExtensionResults: { prf: { results: { first: b('11'.repeat(32)), second: b('22'.repeat(32)) } } },
};

test('a registration passes instanceof checks and reads through own properties', () => {
  const cred = codec.buildCredential(createFrame, env);
  assert.ok(cred instanceof PublicKeyCredential);
  assert.ok(cred.response instanceof AuthenticatorAttestationResponse);
  assert.ok(cred.response instanceof AuthenticatorResponse);
  assert.equal(cred.id, b64('c0ffee'));
  assert.equal(cred.type, 'public-key');
  assert.equal(cred.authenticatorAttachment, 'cross-platform');
  assert.ok(cred.rawId instanceof ArrayBuffer);
  assert.equal(u8(cred.rawId), 'c0ffee');
  assert.equal(u8(cred.response.clientDataJSON), '7b7d');
  assert.equal(u8(cred.response.attestationObject), 'a0a1');
  assert.equal(u8(cred.response.getAuthenticatorData()), 'd00d');
  assert.equal(cred.response.getPublicKeyAlgorithm(), -7);
  assert.equal(cred.rawId, cred.rawId, '[SameObject]');
  for (const name of ['id', 'rawId', 'type', 'response', 'toJSON', 'getClientExtensionResults']) {
    assert.ok(Object.hasOwn(cred, name), name);
  }
});

test('getPublicKey returns the SPKI DER bytes from the host', () => {
  const cred = codec.buildCredential(createFrame, env);
  const spki = cred.response.getPublicKey();
  assert.ok(spki instanceof ArrayBuffer);
  assert.equal(u8(spki), SPKI);
  const noKey = codec.buildCredential({ ...createFrame, response: { ...createFrame.response, publicKey: null } }, env);
  assert.equal(noKey.response.getPublicKey(), null);
});

test('getTransports returns a copy each time', () => {
  const cred = codec.buildCredential(createFrame, env);
  const first = cred.response.getTransports();
  assert.deepEqual(first, ['usb', 'nfc']);
  first.push('ble');
  assert.deepEqual(cred.response.getTransports(), ['usb', 'nfc']);
  assert.notEqual(cred.response.getTransports(), cred.response.getTransports());
});

test('registration toJSON is exactly the L3 RegistrationResponseJSON shape', () => {
  const json = codec.buildCredential(createFrame, env).toJSON();
  assert.deepEqual(json, {
    id: b64('c0ffee'),
    rawId: b64('c0ffee'),
    response: {
      clientDataJSON: b64('7b7d'), authenticatorData: b64('d00d'), transports: ['usb', 'nfc'],
      publicKey: b64(SPKI), publicKeyAlgorithm: -7, attestationObject: b64('a0a1'),
    },
    authenticatorAttachment: 'cross-platform',
    clientExtensionResults: { credProps: { rk: true }, prf: { enabled: true } },
    type: 'public-key',
  });
  assert.deepEqual(Object.keys(json), ['id', 'rawId', 'response', 'authenticatorAttachment', 'clientExtensionResults', 'type']);
  assert.deepEqual(JSON.parse(JSON.stringify(codec.buildCredential(createFrame, env))), json, 'JSON.stringify uses toJSON');
});

test('toJSON leaves out publicKey and authenticatorAttachment when there are none', () => {
  const frame = { ...createFrame, authenticatorAttachment: null, response: { ...createFrame.response, publicKey: undefined } };
  const json = codec.buildCredential(frame, env).toJSON();
  assert.equal('publicKey' in json.response, false);
  assert.equal('authenticatorAttachment' in json, false);
  assert.equal(codec.buildCredential(frame, env).authenticatorAttachment, null);
});

test('an assertion has authenticatorData, signature and userHandle as ArrayBuffers', () => {
  const cred = codec.buildCredential(getFrame, env);
  assert.ok(cred instanceof PublicKeyCredential);
  assert.ok(cred.response instanceof AuthenticatorAssertionResponse);
  assert.equal(cred.response instanceof AuthenticatorAttestationResponse, false);
  assert.equal(u8(cred.response.authenticatorData), 'aaaa');
  assert.equal(u8(cred.response.signature), '3045');
  assert.equal(u8(cred.response.userHandle), '75');
  assert.equal(u8(cred.response.clientDataJSON), '7b7d');
});

test('assertion toJSON is exactly the L3 AuthenticationResponseJSON shape, userHandle omitted when null', () => {
  const json = codec.buildCredential(getFrame, env).toJSON();
  assert.deepEqual(json, {
    id: b64('0102'), rawId: b64('0102'),
    response: { clientDataJSON: b64('7b7d'), authenticatorData: b64('aaaa'), signature: b64('3045'), userHandle: b64('75') },
    authenticatorAttachment: 'cross-platform',
    clientExtensionResults: { prf: { results: { first: b64('11'.repeat(32)), second: b64('22'.repeat(32)) } } },
    type: 'public-key',
  });
  const noHandle = codec.buildCredential({ ...getFrame, response: { ...getFrame.response, userHandle: null } }, env);
  assert.equal(noHandle.response.userHandle, null);
  assert.equal('userHandle' in noHandle.toJSON().response, false);
});

test('getClientExtensionResults turns nested binary (prf.results.first) into ArrayBuffers, fresh each call', () => {
  const cred = codec.buildCredential(getFrame, env);
  const ext = cred.getClientExtensionResults();
  assert.ok(ext.prf.results.first instanceof ArrayBuffer);
  assert.equal(u8(ext.prf.results.first), '11'.repeat(32));
  assert.equal(u8(ext.prf.results.second), '22'.repeat(32));
  ext.prf.results.first = null;
  assert.ok(cred.getClientExtensionResults().prf.results.first instanceof ArrayBuffer);
});

test('a malformed host reply is refused rather than half-built', () => {
  assert.throws(() => codec.buildCredential({ ...getFrame, type: 'password' }, env), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, rawId: 'AQI' }, env), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, response: { ...getFrame.response, signature: undefined } }, env), TypeError);
  assert.throws(() => codec.buildCredential({ ...createFrame, response: { ...createFrame.response, publicKeyAlgorithm: 'x' } }, env), TypeError);
  assert.throws(() => codec.buildCredential({ ...getFrame, clientExtensionResults: { x: { __binary__: '+' } } }, env), TypeError);
});

test('an error frame becomes a real DOMException with the host name and message', () => {
  for (const name of ['NotAllowedError', 'InvalidStateError', 'SecurityError', 'NotSupportedError', 'AbortError', 'ConstraintError']) {
    const error = codec.buildError({ name, message: `because ${name}` }, env);
    assert.ok(error instanceof DOMException, name);
    assert.equal(error.name, name);
    assert.equal(error.message, `because ${name}`);
  }
  assert.equal(new DOMException('', 'SecurityError').code, 18, 'legacy code follows the name');
  assert.equal(codec.buildError({ name: 'SecurityError', message: '' }, env).code, 18);
});

test('TypeError stays a TypeError; timeouts and unknown names become NotAllowedError', () => {
  const typeError = codec.buildError({ name: 'TypeError', message: 'challenge is required' }, env);
  assert.ok(typeError instanceof TypeError);
  assert.equal(typeError.message, 'challenge is required');
  assert.equal(codec.buildError({ name: 'TimeoutError', message: 't' }, env).name, 'NotAllowedError');
  assert.equal(codec.buildError({ name: 'HackerError', message: 'x' }, env).name, 'NotAllowedError');
  assert.equal(codec.buildError(null, env).name, 'NotAllowedError');
});
