/*
 * webidl.js — navigator.credentials.create()/get() options converted as the browser the page runs in converts
 * them (WebAuthn L3 §5.4/§5.5; Credential Management's CredentialCreationOptions/CredentialRequestOptions), with
 * the WebIDL conversions of page/webidl-types.js; and what the bridge makes of a converted request: whether it
 * serves it, and what Chromium's own refuses before any authenticator.
 *
 * Runs in the page's MAIN world at document_start, after webidl-types.js, and in node (CommonJS). It hands itself
 * to interceptor.js through a non-enumerable `Symbol.for('webauthn-bridge.webidl')` property that interceptor.js
 * deletes, as codec.js does.
 *
 * Only the members the browser itself reads are declared (measured in Chromium 156 and Firefox 153 with a logging
 * Proxy; the two differ in the request-level members and in the extensions). The same converted value serves both
 * ways a request can go: encoded for the host (`encode`, bytes copied then, base64url), or handed as the options to
 * the browser's own create()/get(), which converts it again without reaching a page getter a second time.
 * It decides no security question: the host still reads the JSON strictly and checks every rule itself.
 */
(function (root) {
  'use strict';

  const TYPES_KEY = Symbol.for('webauthn-bridge.webidl-types');
  // page/webidl-types.js: in the page, found under its symbol (interceptor.js deletes it); in node, required.
  const inNode = typeof module === 'object' && module && module.exports;
  const {
    domString, unsignedLong, long, boolean, bufferSource, sequence, record, enumeration, abortSignal, unconverted,
    dictionary, member, required, chromium, isObject, fail, append, encode, bytesOf,
  } = inNode ? require('./webidl-types.js') : root[TYPES_KEY];
  // Captured now, before any page script can replace them.
  const { defineProperty, getOwnPropertyDescriptor, create, keys: objectKeys } = Object;
  const URLCtor = root.URL;

  function canParseURL(text) {
    try {
      new URLCtor(text); // eslint-disable-line no-new
      return true;
    } catch (_) {
      return false;
    }
  }

  /** Firefox reads an `appid` of "null" (ToString of null) as none given, which stands for the caller's origin as
   *  an empty one does (WebAuthnHandler's EvaluateAppID); the host knows the empty one. */
  function firefoxAppID(value, at, ctx) {
    const text = domString(value, at, ctx);
    return text === 'null' ? '' : text;
  }

  // ---- WebAuthn L3 and Credential Management, as Chromium 156 and Firefox 153 read them ------------------------------

  const prfValues = dictionary('AuthenticationExtensionsPRFValues', [
    member('first', bufferSource, required),
    member('second', bufferSource),
  ]);
  const extensionInputs = dictionary('AuthenticationExtensionsClientInputs', [
    member('appid', domString, chromium),
    member('appid', firefoxAppID, { only: 'firefox' }),
    member('appidExclude', domString, chromium),
    member('credBlob', bufferSource, chromium),
    member('credProps', boolean),
    member('credentialProtectionPolicy', domString, chromium),
    member('credentialProtectionPolicy', enumeration('CredentialProtectionPolicy', ['userVerificationOptional',
      'userVerificationOptionalWithCredentialIDList', 'userVerificationRequired']), { only: 'firefox' }),
    member('enforceCredentialProtectionPolicy', boolean),
    member('getCredBlob', boolean, chromium),
    member('hmacCreateSecret', boolean),
    member('largeBlob', dictionary('AuthenticationExtensionsLargeBlobInputs', [
      member('read', boolean),
      member('support', domString),
      member('write', bufferSource),
    ])),
    member('minPinLength', boolean),
    member('prf', dictionary('AuthenticationExtensionsPRFInputs', [
      member('eval', prfValues),
      member('evalByCredential', record(prfValues)),
    ])),
    member('uvm', boolean, chromium),
  ]);
  const descriptor = dictionary('PublicKeyCredentialDescriptor', [
    member('id', bufferSource, required),
    member('transports', sequence(domString)),
    member('type', domString, required),
  ]);
  const creationOptions = dictionary('PublicKeyCredentialCreationOptions', [
    member('attestation', domString),
    member('authenticatorSelection', dictionary('AuthenticatorSelectionCriteria', [
      member('authenticatorAttachment', domString),
      member('requireResidentKey', boolean),
      member('residentKey', domString),
      member('userVerification', domString),
    ])),
    member('challenge', bufferSource, required),
    member('excludeCredentials', sequence(descriptor)),
    member('extensions', extensionInputs),
    member('hints', sequence(domString)),
    member('pubKeyCredParams', sequence(dictionary('PublicKeyCredentialParameters', [
      member('alg', long, required),
      member('type', domString, required),
    ])), required),
    member('rp', dictionary('PublicKeyCredentialRpEntity', [
      member('name', domString, { required: true, from: 'PublicKeyCredentialEntity' }),
      member('id', domString),
    ]), required),
    member('timeout', unsignedLong),
    member('user', dictionary('PublicKeyCredentialUserEntity', [
      member('name', domString, { required: true, from: 'PublicKeyCredentialEntity' }),
      member('displayName', domString, required),
      member('id', bufferSource, required),
    ]), required),
  ]);
  const requestOptions = dictionary('PublicKeyCredentialRequestOptions', [
    member('allowCredentials', sequence(descriptor)),
    member('challenge', bufferSource, required),
    member('extensions', extensionInputs),
    member('hints', sequence(domString)),
    member('rpId', domString),
    member('timeout', unsignedLong),
    member('userVerification', domString),
  ]);

  const mediation = enumeration('CredentialMediationRequirement', ['silent', 'optional', 'required', 'conditional']);
  const TOP_LEVEL = {
    create: dictionary('CredentialCreationOptions', [
      member('digital', unconverted, chromium),
      member('federated', unconverted, chromium),
      member('mediation', mediation),
      member('password', unconverted, chromium),
      member('publicKey', creationOptions),
      member('signal', abortSignal),
    ]),
    get: dictionary('CredentialRequestOptions', [
      member('digital', unconverted, chromium),
      member('federated', unconverted, chromium),
      member('identity', unconverted, chromium),
      member('mediation', mediation),
      member('otp', unconverted, chromium),
      member('password', boolean, chromium),
      member('publicKey', requestOptions),
      member('signal', abortSignal),
      member('uiMode', enumeration('CredentialUiModeRequirement', ['immediate']), chromium),
    ]),
  };
  const DICTIONARY_NAMES = { create: 'CredentialCreationOptions', get: 'CredentialRequestOptions' };
  const PUBLIC_KEY = { create: creationOptions, get: requestOptions };

  /** The members of publicKey the browser reads, in the order it reads them (page/tripwire.js). */
  function publicKeyMembers(op, browser) {
    const members = PUBLIC_KEY[op].members;
    const names = [];
    for (let i = 0; i < members.length; i++) {
      if (!members[i][2].only || members[i][2].only === browser) append(names, members[i][0]);
    }
    return names;
  }

  /**
   * The create()/get() argument as an IDL value, or a TypeError (page realm) with the browser's text; a page
   * getter's own exception propagates as it is. `browser` is "chromium" or "firefox".
   */
  function convertOptions(op, options, browser) {
    const ctx = { op, browser };
    if (options !== undefined && options !== null && !isObject(options)) fail(ctx, null, 'dictionary', DICTIONARY_NAMES[op]);
    return TOP_LEVEL[op](options, null, ctx);
  }

  // Members naming a kind of credential the bridge does not serve: present, the request is the browser's.
  const OTHER_KINDS = ['digital', 'federated', 'identity', 'otp'];

  /**
   * Whether the bridge serves a converted request with the browser's meaning: a modal publicKey request
   * (mediation "optional" or "required"; Chromium serves "silent" as modal too, and a get() asking for a password
   * as well as a public key credential with the public key), for no other kind of credential. Everything else —
   * conditional UI, immediate UI, Firefox's refusal of "silent", passwords at create, federated and other
   * credentials, no publicKey — stays the browser's to answer.
   */
  function bridgeServes(op, converted, browser) {
    if (!publicKeyOnly(op, converted)) return false;
    const mode = converted.mediation;
    return mode === undefined || mode === 'optional' || mode === 'required' || (mode === 'silent' && browser === 'chromium');
  }

  /** A request for a public key credential and nothing else (no other kind, no password at create, no uiMode). */
  function publicKeyOnly(op, converted) {
    if (converted.publicKey === undefined || converted.uiMode !== undefined) return false;
    for (let i = 0; i < OTHER_KINDS.length; i++) if (converted[OTHER_KINDS[i]] !== undefined) return false;
    return !(op === 'create' && converted.password !== undefined);
  }

  /**
   * A request the browser's own answers that Chromium's proxy path, when attached, would take from it and have
   * served as a modal one: a conditional create. The relay announces it as conditional (the proxy path refuses
   * it as Chromium's own does) and answers `fallback`.
   */
  function announcedAsConditional(op, converted, browser) {
    return browser === 'chromium' && op === 'create' && converted.mediation === 'conditional' && publicKeyOnly(op, converted);
  }

  // WebAuthn L3 credentialProtectionPolicy values, as Chromium numbers them for its checks.
  const UV_OPTIONAL = 'userVerificationOptional';
  const UV_REQUIRED = 'userVerificationRequired';

  /** Whether Chromium might make a discoverable credential: residentKey, else requireResidentKey (unknown values
   *  of residentKey are ignored, L3 §5.4.4). */
  function mightBeDiscoverable(selection) {
    const residentKey = selection && selection.residentKey;
    if (residentKey === 'required' || residentKey === 'preferred') return true;
    if (residentKey === 'discouraged') return false;
    return Boolean(selection && selection.requireResidentKey);
  }

  // The most entries Blink takes in a credential list (RangeError above, before the extension inputs: the host's
  // refusal; common/protocol-constants.js's credentialListEntries, which a classic script cannot import).
  const CREDENTIAL_LIST_ENTRIES = 64;
  // Blink's largest largeBlob.write (kMaxLargeBlobSize, authentication_credentials_container.cc) and PRF input
  // (device::kMaxPRFInputSize, device/fido/public/fido_constants.h); Firefox has neither.
  const MAX_LARGE_BLOB_WRITE = 2048;
  const MAX_PRF_INPUT = 256;
  const PRF_INPUT_TOO_LARGE = "'prf' extension contains excessively large input";

  /** Whether Blink finds a PRF input (first, or second) over its limit. */
  function prfValuesTooLarge(values) {
    return bytesOf(values.first).length > MAX_PRF_INPUT
      || (values.second !== undefined && bytesOf(values.second).length > MAX_PRF_INPUT);
  }

  /**
   * Blink's PRF checks at sign-in, where the page world makes only the size check (SyntaxError there): `eval`, then
   * each `evalByCredential` entry once its key named an allowed credential. Where the host refuses first (an empty
   * allow list, a key that is no allowed credential's base64url), null: its refusal is the one Chromium gives.
   */
  function prfRefusalAtGet(prf, allowCredentials, idText) {
    const byCredential = prf.evalByCredential;
    if (byCredential !== undefined && !(allowCredentials && allowCredentials.length)) return null;
    if (prf.eval !== undefined && prfValuesTooLarge(prf.eval)) return ['SyntaxError', PRF_INPUT_TOO_LARGE];
    if (byCredential === undefined) return null;
    const allowed = create(null);
    for (let i = 0; i < allowCredentials.length; i++) allowed[idText(bytesOf(allowCredentials[i].id))] = true;
    const keys = objectKeys(byCredential);
    for (let i = 0; i < keys.length; i++) {
      if (!allowed[keys[i]]) return null;
      if (prfValuesTooLarge(byCredential[keys[i]])) return ['SyntaxError', PRF_INPUT_TOO_LARGE];
    }
    return null;
  }

  /**
   * The refusals Chromium's own makes of a converted request before any authenticator, where the host, which
   * does not know the browser, would answer otherwise (Chromium 156, authentication_credentials_container.cc and
   * authenticator_common_impl.cc; measured): an `appid`/`appidExclude` that is no URL (SyntaxError; Firefox's
   * SecurityError is the host's), a largeBlob write over 2 KiB or a PRF input over 256 bytes, and a credProtect
   * request that contradicts the rest (NotSupportedError). Blink's come in its order among the host's (which
   * make the rest of Blink's: ExtensionInputs.swift): where the host's refusal comes first, null. `idText` writes
   * a credential id as an `evalByCredential` key (base64url). Answers [name, message] or null.
   */
  function browserRefusal(op, converted, browser, idText) {
    const publicKey = converted.publicKey;
    const extensions = publicKey && publicKey.extensions;
    if (browser !== 'chromium' || !extensions) return null;
    const list = op === 'get' ? publicKey.allowCredentials : publicKey.excludeCredentials;
    if (list && list.length > CREDENTIAL_LIST_ENTRIES) return null;
    if (op === 'create' && extensions.appid !== undefined) return null;
    const appidKey = op === 'get' ? 'appid' : 'appidExclude';
    const appid = extensions[appidKey];
    if (appid !== undefined && appid !== '' && !canParseURL(appid)) {
      return ['SyntaxError', `The \`${appidKey}\` extension value is neither empty/null nor a valid URL${op === 'get' ? '' : '.'}`];
    }
    const large = extensions.largeBlob;
    const prf = extensions.prf;
    if (op === 'get') {
      if (extensions.credProps || (large && large.support !== undefined)) return null;
      if (large && large.write !== undefined && bytesOf(large.write).length > MAX_LARGE_BLOB_WRITE) {
        return ['NotSupportedError', "The 'largeBlob' extension's 'write' parameter exceeds the maximum allowed size (2kb)"];
      }
      return prf ? prfRefusalAtGet(prf, publicKey.allowCredentials, idText) : null;
    }
    if (large && (large.read !== undefined || large.write !== undefined)) return null;
    if (prf && prf.eval !== undefined && prfValuesTooLarge(prf.eval)) return ['NotSupportedError', PRF_INPUT_TOO_LARGE];
    if (prf && prf.evalByCredential !== undefined) return null;
    const policy = extensions.credentialProtectionPolicy;
    const selection = publicKey.authenticatorSelection;
    const inconsistent = (extensions.enforceCredentialProtectionPolicy && (policy === undefined || policy === UV_OPTIONAL))
      || (policy === UV_OPTIONAL && !mightBeDiscoverable(selection))
      || (policy === UV_REQUIRED && !(selection && selection.userVerification === 'required'));
    return inconsistent
      ? ['NotSupportedError', 'Requested protection policy is inconsistent or incongruent with other requested parameters.']
      : null;
  }

  /** Which browser's conversions this page gets: SpiderMonkey gives every Error own lineNumber/columnNumber. */
  function browserOf(win) {
    return getOwnPropertyDescriptor(new win.Error(), 'columnNumber') ? 'firefox' : 'chromium';
  }

  const webidl = Object.freeze({
    convertOptions, publicKeyMembers, bridgeServes, announcedAsConditional, browserRefusal, encode, bytesOf, browserOf,
    CREDENTIAL_LIST_ENTRIES,
  });

  if (typeof module === 'object' && module && module.exports) {
    module.exports = webidl;
  } else {
    defineProperty(root, Symbol.for('webauthn-bridge.webidl'), { value: webidl, configurable: true, enumerable: false });
  }
})(globalThis);