// background/proxy-codec.js: Chromium's requestDetailsJson into the host's options (binary members as markers, the
// caller's origin from Chromium's override), and the host's credential into responseJson.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as codec from '../background/proxy-codec.js';
import { CREATE_JSON, GET_JSON, HOST_ASSERTION, ORIGIN } from './proxy-requests.mjs';

test('a proxied create: binary members become markers, the override is taken out and gives the origin', () => {
  const parsed = codec.parseRequestDetails('create', CREATE_JSON);
  assert.equal(parsed.origin, ORIGIN);
  assert.equal(parsed.sameOriginWithAncestors, true);
  assert.deepEqual(parsed.options.challenge, { __binary__: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc' });
  assert.deepEqual(parsed.options.user.id, { __binary__: 'AAAAAAAAAAA' });
  assert.deepEqual(parsed.options.excludeCredentials[0].id, { __binary__: 'AAEC' });
  assert.deepEqual(parsed.options.extensions, { credProps: true });
  assert.equal(parsed.options.rp.id, 'example.com');
});

test('a proxied get: allowCredentials ids and prf inputs become markers; no extension left → no extensions member', () => {
  const parsed = codec.parseRequestDetails('get', GET_JSON());
  assert.deepEqual(parsed.options.allowCredentials[0].id, { __binary__: 'AAAAAAAAAAAAAAAAAAAAAA' });
  assert.deepEqual(parsed.options.extensions, { prf: { eval: { first: { __binary__: 'AQ' } } } });
  const bare = JSON.parse(GET_JSON());
  bare.extensions = { remoteDesktopClientOverride: bare.extensions.remoteDesktopClientOverride };
  assert.equal('extensions' in codec.parseRequestDetails('get', JSON.stringify(bare)).options, false);
});

test('a request without Chromium\'s override, or with a malformed one or bad base64url, is refused', () => {
  const noOverride = JSON.parse(GET_JSON());
  delete noOverride.extensions.remoteDesktopClientOverride;
  assert.throws(() => codec.parseRequestDetails('get', JSON.stringify(noOverride)), /remoteDesktopClientOverride/);
  const bad = JSON.parse(GET_JSON());
  bad.extensions.remoteDesktopClientOverride.sameOriginWithAncestors = 'yes';
  assert.throws(() => codec.parseRequestDetails('get', JSON.stringify(bad)), /malformed/);
  assert.throws(() => codec.parseRequestDetails('get', GET_JSON('a+b/')), /base64url/);
  assert.throws(() => codec.parseRequestDetails('get', '{'), SyntaxError);
});

test('the host credential becomes the toJSON() form: base64url strings, no null userHandle, transports kept', () => {
  const json = JSON.parse(codec.responseJson('get', HOST_ASSERTION));
  assert.deepEqual(json, {
    type: 'public-key', id: 'q83v', rawId: 'q83v', authenticatorAttachment: 'cross-platform',
    response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'MEUC' },
    clientExtensionResults: { prf: { results: { first: 'AQID' } } },
  });
  const created = JSON.parse(codec.responseJson('create', {
    type: 'public-key', id: 'q83v', rawId: { __binary__: 'q83v' },
    response: { clientDataJSON: { __binary__: 'e30' }, attestationObject: { __binary__: 'oA' }, authenticatorData: { __binary__: 'AA' },
      transports: ['usb'], publicKey: { __binary__: 'MFkw' }, publicKeyAlgorithm: -7 },
  }));
  assert.deepEqual(created.response, { clientDataJSON: 'e30', attestationObject: 'oA', authenticatorData: 'AA', transports: ['usb'], publicKey: 'MFkw', publicKeyAlgorithm: -7 });
  assert.deepEqual(created.clientExtensionResults, {});
  assert.throws(() => codec.responseJson('create', HOST_ASSERTION), /attestationObject/);
  assert.throws(() => codec.responseJson('get', { type: 'public-key' }), /not a public-key credential/);
});
