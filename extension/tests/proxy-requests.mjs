// What Chromium's webAuthenticationProxy hands the extension for a page's create() and get(), and a credential as
// the host answers: the requests proxy-codec.test.mjs and proxy.test.mjs start from.

export const ORIGIN = 'https://example.com';
// What Chromium 156 hands over for a page's create() (captured from a headless run, origin changed).
export const CREATE_JSON = JSON.stringify({
  attestation: 'none', challenge: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc', excludeCredentials: [{ id: 'AAEC', type: 'public-key' }],
  extensions: { remoteDesktopClientOverride: { origin: ORIGIN, sameOriginWithAncestors: true }, credProps: true },
  pubKeyCredParams: [{ alg: -7, type: 'public-key' }], rp: { id: 'example.com', name: 'x' }, timeout: 180000,
  user: { displayName: 'U', id: 'AAAAAAAAAAA', name: 'u' },
});
export const GET_JSON = (challenge = 'AQID', same = true, origin = ORIGIN) => JSON.stringify({
  allowCredentials: [{ id: 'AAAAAAAAAAAAAAAAAAAAAA', transports: ['usb'], type: 'public-key' }], challenge,
  extensions: { remoteDesktopClientOverride: { origin, sameOriginWithAncestors: same }, prf: { eval: { first: 'AQ' } } },
  rpId: 'example.com', userVerification: 'preferred',
});
export const HOST_ASSERTION = {
  type: 'public-key', id: 'q83v', rawId: { __binary__: 'q83v' }, authenticatorAttachment: 'cross-platform',
  response: { clientDataJSON: { __binary__: 'e30' }, authenticatorData: { __binary__: 'AAAA' }, signature: { __binary__: 'MEUC' }, userHandle: null },
  clientExtensionResults: { prf: { results: { first: { __binary__: 'AQID' } } } },
};
