/*
 * chromium-texts.js — Chromium 156's DOMException messages for WebAuthn, listed once: the bridge gives pages what
 * Chromium's own WebAuthn would say (Blink: credentials_container.cc, AuthenticatorStatusToDOMException; the frame
 * rules measured against Chromium's own, docs/extension.md). common/chromium-errors.js makes the background's
 * errors from it; the classic scripts that cannot import it (common/frame-rules.js, page/interceptor.js,
 * page/ceremony.js, and page/codec.js, which words them for Firefox) and the host (ErrorMapping.PageText) keep
 * copies that chromium-errors.test.mjs, interceptor.test.mjs and ChromiumErrorTextsTests hold to it. In `policy`,
 * {type} is create or get.
 *
 * Data only, in a module rather than a .json file, for the reason protocol-constants.js gives; strict JSON after
 * `export default`.
 */
export default {
  "notAllowed": "The operation either timed out or was not allowed. See: https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.",
  "pending": "A request is already pending.",
  "aborted": "The operation was aborted.",
  "focus": "The operation is not allowed at this time because the page does not have focus.",
  "opaque": "The current origin is an opaque origin and hence not allowed to access 'PublicKeyCredential' objects.",
  "activation": "A user activation is required to create a credential in a cross-origin iframe.",
  "policy": "The 'publickey-credentials-{type}' feature is not enabled in this document. Permissions Policy may be used to delegate Web Authentication capabilities to cross-origin child frames.",
  "credentialExcluded": "The user attempted to register an authenticator that contains one of the credentials already registered with the relying party.",
  "badRelyingPartyID": "The relying party ID is not a registrable domain suffix of, nor equal to the current domain.",
  "invalidDomain": "This is an invalid domain.",
  "unknown": "An unknown error occurred while talking to the credential manager."
};
