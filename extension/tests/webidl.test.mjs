// page/webidl.js (over page/webidl-types.js): create()/get() options converted as Chromium 156 and Firefox 153
// convert them — which members are read and in which order, each WebIDL type's conversion, the browsers' TypeError
// texts, what goes to the host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const webidl = require('../page/webidl.js');
const { binaryValue, toBase64url } = require('../page/codec.js');

const BROWSERS = ['chromium', 'firefox'];
const bytes = (...b) => new Uint8Array(b);
const json = (value) => webidl.encode(value, binaryValue);

const creation = (publicKey = {}) => ({
  publicKey: {
    rp: { name: 'Example' }, user: { id: bytes(1), name: 'alice', displayName: 'Alice' }, challenge: bytes(1, 2, 3),
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }], ...publicKey,
  },
});
const createJSON = (publicKey, browser = 'chromium') => json(webidl.convertOptions('create', creation(publicKey), browser).publicKey);

/** Every property read on `value` and below, as "path.member", through Proxies (the probe the browsers were
 *  measured with). */
function readsOf(value, convert) {
  const log = [];
  const wrap = (target, path) => new Proxy(target, {
    get(t, key, receiver) {
      const where = `${path}.${String(key)}`;
      log.push(where);
      const found = Reflect.get(t, key, receiver);
      return found && typeof found === 'object' && !ArrayBuffer.isView(found) && !(found instanceof ArrayBuffer) ? wrap(found, where) : found;
    },
  });
  convert(wrap(value, 'o'));
  return log;
}

test('create: members read once each, inherited first, then lexicographic; unknown members never', () => {
  const options = creation({
    attestation: 'none', authenticatorSelection: { residentKey: 'preferred' }, timeout: 1, zzz: 1,
    extensions: { credProps: true, zzz: 1 }, hints: [], excludeCredentials: [],
  });
  options.zzz = 1;
  const chromium = readsOf(options, (o) => webidl.convertOptions('create', o, 'chromium'));
  const top = chromium.filter((p) => p.split('.').length === 2);
  assert.deepEqual(top, ['o.digital', 'o.federated', 'o.mediation', 'o.password', 'o.publicKey', 'o.signal']);
  const publicKey = chromium.filter((p) => /^o\.publicKey\.[a-zA-Z]+$/.test(p));
  assert.deepEqual(publicKey, ['o.publicKey.attestation', 'o.publicKey.authenticatorSelection', 'o.publicKey.challenge',
    'o.publicKey.excludeCredentials', 'o.publicKey.extensions', 'o.publicKey.hints', 'o.publicKey.pubKeyCredParams',
    'o.publicKey.rp', 'o.publicKey.timeout', 'o.publicKey.user']);
  assert.deepEqual(chromium.filter((p) => /^o\.publicKey\.(rp|user)\.[a-zA-Z]+$/.test(p)),
    ['o.publicKey.rp.name', 'o.publicKey.rp.id', 'o.publicKey.user.name', 'o.publicKey.user.displayName', 'o.publicKey.user.id']);
  assert.deepEqual(chromium.filter((p) => /^o\.publicKey\.extensions\.[a-zA-Z]+$/.test(p)).map((p) => p.split('.')[3]),
    ['appid', 'appidExclude', 'credBlob', 'credProps', 'credentialProtectionPolicy', 'enforceCredentialProtectionPolicy',
      'getCredBlob', 'hmacCreateSecret', 'largeBlob', 'minPinLength', 'prf', 'uvm']);
  assert.ok(!chromium.some((p) => p.includes('zzz')), 'unknown members are not read');

  const firefox = readsOf(options, (o) => webidl.convertOptions('create', o, 'firefox'));
  assert.deepEqual(firefox.filter((p) => p.split('.').length === 2), ['o.mediation', 'o.publicKey', 'o.signal']);
  assert.deepEqual(firefox.filter((p) => /^o\.publicKey\.extensions\.[a-zA-Z]+$/.test(p)).map((p) => p.split('.')[3]),
    ['appid', 'credProps', 'credentialProtectionPolicy', 'enforceCredentialProtectionPolicy', 'hmacCreateSecret',
      'largeBlob', 'minPinLength', 'prf']);
});

test('get: Chromium reads the other credential kinds and uiMode too, Firefox only mediation, publicKey, signal', () => {
  const options = { publicKey: { challenge: bytes(1), allowCredentials: [{ type: 'public-key', id: bytes(2), transports: ['usb'] }] } };
  const chromium = readsOf(options, (o) => webidl.convertOptions('get', o, 'chromium'));
  assert.deepEqual(chromium.filter((p) => p.split('.').length === 2),
    ['o.digital', 'o.federated', 'o.identity', 'o.mediation', 'o.otp', 'o.password', 'o.publicKey', 'o.signal', 'o.uiMode']);
  assert.deepEqual(chromium.filter((p) => p.startsWith('o.publicKey.allowCredentials.0.') && p.split('.').length === 5),
    ['o.publicKey.allowCredentials.0.id', 'o.publicKey.allowCredentials.0.transports', 'o.publicKey.allowCredentials.0.type']);
  const firefox = readsOf(options, (o) => webidl.convertOptions('get', o, 'firefox'));
  assert.deepEqual(firefox.filter((p) => p.split('.').length === 2), ['o.mediation', 'o.publicKey', 'o.signal']);
});

test('DOMString members: ToString of numbers, booleans, arrays, String objects and objects with toString', () => {
  const out = createJSON({
    rp: { name: 42, id: new String('example.com') },
    user: { id: bytes(1), name: { toString: () => 'alice' }, displayName: [] },
    attestation: true,
    authenticatorSelection: { residentKey: ['re', 'quired'], userVerification: { valueOf: () => 1, toString: () => 'required' } },
  });
  assert.deepEqual(out.rp, { name: '42', id: 'example.com' });
  assert.deepEqual(out.user, { name: 'alice', displayName: '', id: { __binary__: 'AQ' } });
  assert.equal(out.attestation, 'true');
  assert.deepEqual(out.authenticatorSelection, { residentKey: 're,quired', userVerification: 'required' });
  assert.deepEqual(createJSON({ rp: { name: 'x', id: null } }).rp, { name: 'x', id: 'null' }, 'null is "null", not absent');
  assert.throws(() => createJSON({ rp: { name: Symbol('s') } }), TypeError);
});

test('lone surrogates reach the host as U+FFFD', () => {
  assert.equal(createJSON({ rp: { name: 'a\ud800b' } }).rp.name, 'a\ufffdb');
  assert.equal(createJSON({ rp: { name: '\ud83d\ude00' } }).rp.name, '\ud83d\ude00');
});

test('unsigned long timeout: ToNumber, NaN and infinities 0, truncated, modulo 2^32', () => {
  const cases = [['1000', 1000], [null, 0], [NaN, 0], [Infinity, 0], [-Infinity, 0], [1.9, 1], [-1, 4294967295],
    [4294967296 + 5, 5], [true, 1], [[7], 7], ['', 0], [-0.5, 0]];
  for (const [given, expected] of cases) assert.equal(createJSON({ timeout: given }).timeout, expected, String(given));
  assert.ok(Object.is(createJSON({ timeout: -0.5 }).timeout, 0), '-0 is 0');
  assert.throws(() => createJSON({ timeout: 1n }), TypeError, 'ToNumber(BigInt) throws');
});

test('long alg: ToNumber then the long conversion', () => {
  const alg = (value) => createJSON({ pubKeyCredParams: [{ type: 'public-key', alg: value }] }).pubKeyCredParams[0].alg;
  assert.equal(alg('-7'), -7);
  assert.equal(alg(1.5), 1);
  assert.equal(alg(2147483648), -2147483648);
  assert.equal(alg('x'), 0);
  assert.equal(alg(null), 0);
});

test('boolean members: ToBoolean', () => {
  const selection = (value) => createJSON({ authenticatorSelection: { requireResidentKey: value } }).authenticatorSelection.requireResidentKey;
  assert.equal(selection('yes'), true);
  assert.equal(selection(''), false);
  assert.equal(selection(0), false);
  assert.equal(selection({}), true);
});

test('BufferSource: ArrayBuffer and every view, its own window, bytes read at encoding', () => {
  const whole = bytes(7, 0xde, 0xad, 0xbe, 0xef, 7);
  assert.deepEqual(createJSON({ challenge: new DataView(whole.buffer, 1, 4) }).challenge, { __binary__: '3q2-7w' });
  assert.deepEqual(createJSON({ challenge: whole.subarray(1, 5) }).challenge, { __binary__: '3q2-7w' });
  assert.deepEqual(createJSON({ challenge: new ArrayBuffer(0) }).challenge, { __binary__: '' });
  const buf = bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17).buffer;
  for (const Kind of [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array]) {
    assert.deepEqual(createJSON({ challenge: new Kind(buf, 8, 1) }).challenge,
      { __binary__: Buffer.from(buf, 8, Kind.BYTES_PER_ELEMENT).toString('base64url') }, Kind.name);
  }
  const challenge = bytes(1, 2, 3);
  const converted = webidl.convertOptions('create', creation({ challenge }), 'chromium');
  const encoded = json(converted.publicKey);
  challenge[0] = 0xff;
  assert.deepEqual(encoded.challenge, { __binary__: 'AQID' }, 'copied when encoded, later writes do not reach the request');
  assert.equal(converted.publicKey.challenge, challenge, 'the IDL value holds the page\'s own object');
});

test('BufferSource refusals: anything else, shared and resizable buffers, with each browser\'s text', () => {
  const shared = new SharedArrayBuffer(4);
  const resizable = new ArrayBuffer(4, { maxByteLength: 8 });
  const cases = [
    ['abc', "The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.", "'challenge' member of PublicKeyCredentialCreationOptions could not be converted to any of: ArrayBufferView, ArrayBuffer."],
    [[1, 2], "The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.", "'challenge' member of PublicKeyCredentialCreationOptions could not be converted to any of: ArrayBufferView, ArrayBuffer."],
    [shared, "Failed to convert value to 'ArrayBuffer'.", "ArrayBuffer branch of (ArrayBufferView or ArrayBuffer) can't be a SharedArrayBuffer or an ArrayBufferView backed by a SharedArrayBuffer"],
    [new Uint8Array(shared), 'The provided ArrayBufferView value must not be shared.', "ArrayBufferView branch of (ArrayBufferView or ArrayBuffer) can't be a SharedArrayBuffer or an ArrayBufferView backed by a SharedArrayBuffer"],
    [resizable, 'The provided ArrayBuffer value must not be resizable.', "ArrayBuffer branch of (ArrayBufferView or ArrayBuffer) can't be a resizable ArrayBuffer or ArrayBufferView"],
    [new DataView(resizable), 'The provided ArrayBufferView value must not be resizable.', "ArrayBufferView branch of (ArrayBufferView or ArrayBuffer) can't be a resizable ArrayBuffer or ArrayBufferView"],
  ];
  for (const [challenge, chromiumText, firefoxText] of cases) {
    assert.throws(() => webidl.convertOptions('create', creation({ challenge }), 'chromium'), {
      name: 'TypeError',
      message: "Failed to execute 'create' on 'CredentialsContainer': Failed to read the 'publicKey' property from 'CredentialCreationOptions': "
        + `Failed to read the 'challenge' property from 'PublicKeyCredentialCreationOptions': ${chromiumText}`,
    });
    assert.throws(() => webidl.convertOptions('create', creation({ challenge }), 'firefox'), { name: 'TypeError', message: `CredentialsContainer.create: ${firefoxText}` });
  }
});

test('a detached buffer converts and reaches the host empty', () => {
  const buffer = new ArrayBuffer(8);
  const view = new Uint8Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  assert.deepEqual(createJSON({ challenge: buffer }).challenge, { __binary__: '' });
  assert.deepEqual(createJSON({ challenge: view }).challenge, { __binary__: '' });
});

test('sequences from any iterable, converted element by element; a non-iterable is a TypeError', () => {
  const params = new Set([{ type: 'public-key', alg: '-7' }]);
  assert.deepEqual(createJSON({ pubKeyCredParams: params }).pubKeyCredParams, [{ alg: -7, type: 'public-key' }]);
  function* generated() { yield { type: 'public-key', alg: -257 }; }
  assert.deepEqual(createJSON({ pubKeyCredParams: generated() }).pubKeyCredParams, [{ alg: -257, type: 'public-key' }]);
  assert.throws(() => createJSON({ hints: 'ab' }), TypeError, 'a string is no Object, iterable or not');
  // A sparse array: a hole reads as undefined, which Chromium refuses as an element and Firefox takes as an empty
  // dictionary (missing its required members).
  assert.throws(() => createJSON({ pubKeyCredParams: [, { type: 'public-key', alg: -7 }] }), { message: /The provided value is not of type 'PublicKeyCredentialParameters'\.$/ });
  assert.throws(() => createJSON({ pubKeyCredParams: [, { type: 'public-key', alg: -7 }] }, 'firefox'), { message: "CredentialsContainer.create: Missing required 'alg' member of PublicKeyCredentialParameters." });
  for (const browser of BROWSERS) {
    assert.throws(() => webidl.convertOptions('create', creation({ pubKeyCredParams: 5 }), browser), {
      name: 'TypeError',
      message: browser === 'chromium'
        ? "Failed to execute 'create' on 'CredentialsContainer': Failed to read the 'publicKey' property from 'CredentialCreationOptions': Failed to read the 'pubKeyCredParams' property from 'PublicKeyCredentialCreationOptions': The provided value cannot be converted to a sequence."
        : "CredentialsContainer.create: 'pubKeyCredParams' member of PublicKeyCredentialCreationOptions can't be converted to a sequence.",
    });
    assert.throws(() => webidl.convertOptions('create', creation({ pubKeyCredParams: {} }), browser), TypeError);
  }
});

test('dictionaries: undefined is empty, a primitive a TypeError; null is empty, but Chromium refuses it where required, as a sequence element and as publicKey', () => {
  assert.deepEqual(Object.keys(createJSON({ authenticatorSelection: undefined })).includes('authenticatorSelection'), false);
  for (const browser of BROWSERS) {
    assert.deepEqual(createJSON({ authenticatorSelection: null }, browser).authenticatorSelection, {}, browser);
    assert.deepEqual(createJSON({ extensions: null }, browser).extensions, {}, browser);
  }
  const chromiumNull = [
    [{ rp: null }, "Failed to read the 'rp' property from 'PublicKeyCredentialCreationOptions': The provided value is not of type 'PublicKeyCredentialRpEntity'."],
    [{ pubKeyCredParams: [null] }, "Failed to read the 'pubKeyCredParams' property from 'PublicKeyCredentialCreationOptions': The provided value is not of type 'PublicKeyCredentialParameters'."],
  ];
  for (const [publicKey, text] of chromiumNull) {
    assert.throws(() => createJSON(publicKey), { message: "Failed to execute 'create' on 'CredentialsContainer': Failed to read the 'publicKey' property from 'CredentialCreationOptions': " + text });
  }
  assert.throws(() => createJSON({ rp: null }, 'firefox'), { message: "CredentialsContainer.create: Missing required 'name' member of PublicKeyCredentialEntity." });
  assert.throws(() => webidl.convertOptions('get', { publicKey: null }, 'chromium'), { message: /The provided value is not of type 'PublicKeyCredentialRequestOptions'\.$/ });
  assert.throws(() => createJSON({ extensions: 5 }, 'firefox'), { message: "CredentialsContainer.create: 'extensions' member of PublicKeyCredentialCreationOptions can't be converted to a dictionary." });
  assert.throws(() => createJSON({ user: 5 }, 'firefox'), { message: "CredentialsContainer.create: Value can't be converted to a dictionary." }, 'a required one');
  assert.throws(() => createJSON({ pubKeyCredParams: [5] }, 'firefox'), { message: "CredentialsContainer.create: Element of 'pubKeyCredParams' member of PublicKeyCredentialCreationOptions can't be converted to a dictionary." });
  assert.deepEqual(createJSON({ extensions: () => 1 }).extensions, {}, 'a function is an object');
  for (const browser of BROWSERS) {
    assert.throws(() => webidl.convertOptions('get', 5, browser), TypeError);
    assert.equal(webidl.convertOptions('get', undefined, browser).publicKey, undefined);
  }
});

test('a Symbol or BigInt gets the engine\'s TypeError, behind Chromium\'s path', () => {
  assert.throws(() => createJSON({ timeout: 1n }), { name: 'TypeError', message: /Failed to read the 'timeout' property from 'PublicKeyCredentialCreationOptions': Cannot convert a BigInt value to a number$/ });
  assert.throws(() => createJSON({ rp: { name: Symbol('s') } }, 'firefox'), { name: 'TypeError', message: 'Cannot convert a Symbol value to a string' });
});

test('required members missing: the browsers\' texts, first missing member in conversion order', () => {
  const missing = [
    ['create', { publicKey: [] }, "Failed to read the 'publicKey' property from 'CredentialCreationOptions': Failed to read the 'challenge' property from 'PublicKeyCredentialCreationOptions': Required member is undefined.", "Missing required 'challenge' member of PublicKeyCredentialCreationOptions."],
    ['create', creation({ rp: {} }), "Failed to read the 'publicKey' property from 'CredentialCreationOptions': Failed to read the 'rp' property from 'PublicKeyCredentialCreationOptions': Failed to read the 'name' property from 'PublicKeyCredentialEntity': Required member is undefined.", "Missing required 'name' member of PublicKeyCredentialEntity."],
    ['create', creation({ pubKeyCredParams: [{ type: 'public-key' }] }), "Failed to read the 'publicKey' property from 'CredentialCreationOptions': Failed to read the 'pubKeyCredParams' property from 'PublicKeyCredentialCreationOptions': Failed to read the 'alg' property from 'PublicKeyCredentialParameters': Required member is undefined.", "Missing required 'alg' member of PublicKeyCredentialParameters."],
    ['get', { publicKey: {} }, "Failed to read the 'publicKey' property from 'CredentialRequestOptions': Failed to read the 'challenge' property from 'PublicKeyCredentialRequestOptions': Required member is undefined.", "Missing required 'challenge' member of PublicKeyCredentialRequestOptions."],
  ];
  for (const [op, options, chromiumText, firefoxText] of missing) {
    assert.throws(() => webidl.convertOptions(op, options, 'chromium'), { name: 'TypeError', message: `Failed to execute '${op}' on 'CredentialsContainer': ${chromiumText}` });
    assert.throws(() => webidl.convertOptions(op, options, 'firefox'), { name: 'TypeError', message: `CredentialsContainer.${op}: ${firefoxText}` });
  }
});

test('a getter that throws rejects with its own exception, and nothing after it is read', () => {
  const mine = new RangeError('mine');
  let after = false;
  const options = creation();
  Object.defineProperty(options.publicKey, 'timeout', { get() { throw mine; } });
  Object.defineProperty(options.publicKey, 'user', { get() { after = true; return {}; } });
  for (const browser of BROWSERS) assert.throws(() => webidl.convertOptions('create', options, browser), (e) => e === mine);
  assert.equal(after, false);
});

test('inherited, non-enumerable and accessor members are read; a Proxy\'s traps run as in the browser', () => {
  class Rp { get name() { return 'From a class'; } }
  const publicKey = Object.create({ challenge: bytes(5) });
  Object.defineProperty(publicKey, 'timeout', { value: 7, enumerable: false });
  const out = createJSON({ rp: new Rp() });
  assert.equal(out.rp.name, 'From a class');
  const get = webidl.convertOptions('get', { publicKey }, 'chromium');
  assert.deepEqual(json(get.publicKey), { challenge: { __binary__: 'BQ' }, timeout: 7 });
});

test('enumerations: an unknown mediation or uiMode is the browser\'s TypeError; WebAuthn\'s DOMStrings take any value', () => {
  assert.throws(() => webidl.convertOptions('get', { mediation: 'immediate' }, 'chromium'), {
    message: "Failed to execute 'get' on 'CredentialsContainer': Failed to read the 'mediation' property from 'CredentialRequestOptions': The provided value 'immediate' is not a valid enum value of type CredentialMediationRequirement.",
  });
  assert.throws(() => webidl.convertOptions('create', { mediation: 'bogus' }, 'firefox'), {
    message: "CredentialsContainer.create: 'bogus' (value of 'mediation' member of CredentialCreationOptions) is not a valid value for enumeration CredentialMediationRequirement.",
  });
  assert.throws(() => webidl.convertOptions('get', { uiMode: 'modal' }, 'chromium'), TypeError);
  assert.equal(webidl.convertOptions('get', { uiMode: 'x' }, 'firefox').uiMode, undefined, 'Firefox does not read uiMode');
  assert.equal(createJSON({ attestation: 'bogus' }).attestation, 'bogus', 'the host ignores unknown values');
});

test('signal: an AbortSignal or the browser\'s TypeError', () => {
  const signal = new AbortController().signal;
  assert.equal(webidl.convertOptions('get', { signal }, 'chromium').signal, signal);
  assert.throws(() => webidl.convertOptions('get', { signal: {} }, 'chromium'), { message: /Failed to read the 'signal' property from 'CredentialRequestOptions': Failed to convert value to 'AbortSignal'\.$/ });
  assert.throws(() => webidl.convertOptions('get', { signal: 1 }, 'firefox'), { message: "CredentialsContainer.get: 'signal' member of CredentialRequestOptions is not an object." });
  assert.throws(() => webidl.convertOptions('get', { signal: null }, 'firefox'), TypeError);
});

test('extensions: the members each browser knows, converted; prf.evalByCredential as a record', () => {
  const extensions = {
    appid: 5, credProps: 1, hmacGetSecret: { salt1: bytes(1) }, largeBlob: { support: 'required', read: 0 },
    prf: { eval: { first: bytes(1) }, evalByCredential: { AQ: { first: bytes(2), second: bytes(3) }, [Symbol('s')]: 1 } },
    credBlob: bytes(9), uvm: 'yes', unknown: 1,
  };
  assert.deepEqual(createJSON({ extensions }).extensions, {
    appid: '5', credBlob: { __binary__: 'CQ' }, credProps: true, largeBlob: { read: false, support: 'required' },
    prf: { eval: { first: { __binary__: 'AQ' } }, evalByCredential: { AQ: { first: { __binary__: 'Ag' }, second: { __binary__: 'Aw' } } } },
    uvm: true,
  });
  assert.deepEqual(createJSON({ extensions }, 'firefox').extensions, {
    appid: '5', credProps: true, largeBlob: { read: false, support: 'required' },
    prf: { eval: { first: { __binary__: 'AQ' } }, evalByCredential: { AQ: { first: { __binary__: 'Ag' }, second: { __binary__: 'Aw' } } } },
  });
  assert.throws(() => createJSON({ extensions: { prf: { eval: {} } } }), { message: /Failed to read the 'first' property from 'AuthenticationExtensionsPRFValues': Required member is undefined\.$/ });
});

test('bridgeServes: modal publicKey requests, as each browser serves them', () => {
  const serves = (op, options, browser = 'chromium') => webidl.bridgeServes(op, webidl.convertOptions(op, options, browser), browser);
  const publicKey = { challenge: bytes(1) };
  assert.equal(serves('get', { publicKey }), true);
  assert.equal(serves('get', { publicKey, mediation: 'required' }), true);
  assert.equal(serves('get', { publicKey, password: true }), true, 'Chromium answers a get() for both with the public key credential');
  assert.equal(serves('get', {}), false);
  assert.equal(serves('get', { publicKey, mediation: 'conditional' }), false);
  assert.equal(serves('create', { ...creation(), mediation: 'conditional' }), false);
  for (const op of ['get', 'create']) {
    const options = op === 'get' ? { publicKey } : creation();
    assert.equal(serves(op, { ...options, mediation: 'silent' }), true, `Chromium serves a silent ${op} as modal`);
    assert.equal(serves(op, { ...options, mediation: 'silent' }, 'firefox'), false, `Firefox refuses a silent ${op}`);
  }
  assert.equal(serves('get', { publicKey, uiMode: 'immediate' }), false);
  assert.throws(() => serves('get', { publicKey, uiMode: 'modal' }), { message: /The provided value 'modal' is not a valid enum value of type CredentialUiModeRequirement\.$/ });
  for (const kind of ['digital', 'federated', 'identity', 'otp']) assert.equal(serves('get', { publicKey, [kind]: {} }), false, kind);
  assert.equal(serves('create', { ...creation(), password: { id: 'a', password: 'b' } }), false);
});

test('browserRefusal: Chromium\'s SyntaxError for an appid that is no URL', () => {
  const refusal = (appid, browser = 'chromium') => webidl.browserRefusal('get', webidl.convertOptions('get', { publicKey: { challenge: bytes(1), extensions: { appid } } }, browser), browser);
  assert.deepEqual(refusal('not a URL'), ['SyntaxError', 'The `appid` extension value is neither empty/null nor a valid URL']);
  assert.equal(refusal('https://example.com'), null);
  assert.equal(refusal(''), null);
  assert.equal(refusal('not a URL', 'firefox'), null, 'Firefox\'s SecurityError is the host\'s');
});

test('browserRefusal: Chromium\'s NotSupportedError for a largeBlob write over 2 KiB, after its refusals of credProps and support', () => {
  const refusal = (extensions, browser = 'chromium') => webidl.browserRefusal('get', webidl.convertOptions('get', { publicKey: { challenge: bytes(1), extensions } }, browser), browser);
  const tooLarge = ['NotSupportedError', "The 'largeBlob' extension's 'write' parameter exceeds the maximum allowed size (2kb)"];
  assert.deepEqual(refusal({ largeBlob: { write: new Uint8Array(2049) } }), tooLarge);
  assert.deepEqual(refusal({ largeBlob: { write: new DataView(new ArrayBuffer(4096), 1024, 2049) } }), tooLarge);
  assert.equal(refusal({ largeBlob: { write: new Uint8Array(2048) } }), null);
  assert.equal(refusal({ largeBlob: { write: new Uint8Array(2049), support: 'preferred' } }), null, 'the host refuses support first');
  assert.equal(refusal({ largeBlob: { write: new Uint8Array(2049) }, credProps: true }), null, 'the host refuses credProps first');
  assert.equal(refusal({ largeBlob: { write: new Uint8Array(2049) } }, 'firefox'), null, 'Firefox has no such limit');
});

test('browserRefusal: Chromium\'s SyntaxError for an appidExclude that is no URL, NotSupportedError for a contradictory credProtect', () => {
  const refusal = (publicKey, browser = 'chromium') => webidl.browserRefusal('create', webidl.convertOptions('create', creation(publicKey), browser), browser);
  assert.deepEqual(refusal({ extensions: { appidExclude: null } }), ['SyntaxError', 'The `appidExclude` extension value is neither empty/null nor a valid URL.']);
  assert.equal(refusal({ extensions: { appidExclude: 'https://example.com' } }), null);
  const inconsistent = ['NotSupportedError', 'Requested protection policy is inconsistent or incongruent with other requested parameters.'];
  const rk = (residentKey, extra = {}) => ({ authenticatorSelection: { residentKey, ...extra } });
  const cases = [
    [{ extensions: { enforceCredentialProtectionPolicy: true } }, inconsistent, 'enforcing no policy'],
    [{ ...rk('required'), extensions: { credentialProtectionPolicy: 'userVerificationOptional', enforceCredentialProtectionPolicy: 1 } }, inconsistent, 'enforcing the default'],
    [{ extensions: { credentialProtectionPolicy: 'userVerificationOptional' } }, inconsistent, 'no policy for a non-discoverable credential'],
    [{ ...rk('bogus', { requireResidentKey: true }), extensions: { credentialProtectionPolicy: 'userVerificationOptional' } }, null, 'requireResidentKey where residentKey is unknown'],
    [{ ...rk('preferred'), extensions: { credentialProtectionPolicy: 'userVerificationOptional' } }, null, 'may be discoverable'],
    [{ extensions: { credentialProtectionPolicy: 'userVerificationRequired' } }, inconsistent, 'UV required by the policy only'],
    [{ ...rk('discouraged', { userVerification: 'required' }), extensions: { credentialProtectionPolicy: 'userVerificationRequired', enforceCredentialProtectionPolicy: true } }, null, 'consistent'],
    [{ extensions: { credentialProtectionPolicy: 'userVerificationOptionalWithCredentialIDList' } }, null, 'the credential-id-list policy'],
  ];
  for (const [publicKey, expected, why] of cases) assert.deepEqual(refusal(publicKey), expected, why);
  assert.equal(refusal({ extensions: { enforceCredentialProtectionPolicy: true, appidExclude: 'x' } }, 'firefox'), null, 'Chromium\'s rules only');
});

test('browserRefusal: Chromium\'s refusal of a PRF input over 256 bytes, in Blink\'s order among the host\'s refusals', () => {
  const create = (extensions, browser = 'chromium') => webidl.browserRefusal('create', webidl.convertOptions('create', creation({ extensions }), browser), browser, toBase64url);
  const get = (extensions, allowCredentials = [{ type: 'public-key', id: bytes(1, 2, 3) }], browser = 'chromium') => webidl.browserRefusal('get', webidl.convertOptions('get', { publicKey: { challenge: bytes(1), allowCredentials, extensions } }, browser), browser, toBase64url);
  const message = "'prf' extension contains excessively large input";
  const big = () => new Uint8Array(257);
  const fits = () => new Uint8Array(256);
  // At create: NotSupportedError, after appid and largeBlob's read and write (the host's), before evalByCredential.
  assert.deepEqual(create({ prf: { eval: { first: big() } } }), ['NotSupportedError', message]);
  assert.deepEqual(create({ prf: { eval: { first: fits(), second: new DataView(new ArrayBuffer(300), 10, 257) } } }), ['NotSupportedError', message]);
  assert.deepEqual(create({ prf: { eval: { first: big() }, evalByCredential: {} } }), ['NotSupportedError', message], 'before evalByCredential');
  assert.equal(create({ prf: { eval: { first: fits(), second: fits() } } }), null);
  assert.equal(create({ prf: { eval: { first: big() } }, appid: 'https://example.com' }), null, 'the host refuses appid first');
  assert.equal(create({ prf: { eval: { first: big() } }, largeBlob: { read: false } }), null, 'the host refuses largeBlob.read first');
  assert.equal(create({ prf: { eval: { first: big() } } }, 'firefox'), null, 'Firefox has no such limit');
  // At get: SyntaxError; eval first, then each entry once its key named an allowed credential.
  const key = toBase64url(bytes(1, 2, 3));
  assert.deepEqual(get({ prf: { eval: { first: big() } } }), ['SyntaxError', message]);
  assert.deepEqual(get({ prf: { evalByCredential: { [key]: { first: fits(), second: big() } } } }), ['SyntaxError', message]);
  assert.equal(get({ prf: { evalByCredential: { [key]: { first: fits() } } } }), null);
  assert.equal(get({ prf: { evalByCredential: { AQID: { first: fits() }, BBBB: { first: big() } } } }), null, 'an unknown key: the host\'s SyntaxError first');
  assert.equal(get({ prf: { eval: { first: big() }, evalByCredential: {} } }, []), null, 'an empty allow list: the host\'s NotSupportedError first');
  assert.equal(get({ prf: { eval: { first: big() } }, credProps: true }), null, 'the host refuses credProps first');
  assert.equal(get({ prf: { eval: { first: big() } } }, undefined, 'firefox'), null, 'Firefox has no such limit');
});

test('browserRefusal: at create, an appidExclude that is no URL and a contradictory credProtect wait for the host\'s earlier refusals', () => {
  const refusal = (extensions) => webidl.browserRefusal('create', webidl.convertOptions('create', creation({ extensions }), 'chromium'), 'chromium', toBase64url);
  assert.equal(refusal({ appid: 'https://example.com', appidExclude: 'not a URL' }), null, 'Blink refuses appid first');
  assert.deepEqual(refusal({ appidExclude: 'not a URL', largeBlob: { read: true } })[0], 'SyntaxError', 'before largeBlob');
  assert.equal(refusal({ enforceCredentialProtectionPolicy: true, prf: { evalByCredential: {} } }), null, 'evalByCredential first');
  assert.equal(refusal({ enforceCredentialProtectionPolicy: true, largeBlob: { write: bytes(1) } }), null, 'largeBlob.write first');
});

test('browserRefusal: a credential list over 64 entries is the host\'s RangeError, which Blink gives first', () => {
  const ids = (n) => Array.from({ length: n }, (_, i) => ({ type: 'public-key', id: bytes(i) }));
  const get = (allowCredentials) => webidl.browserRefusal('get', webidl.convertOptions('get', { publicKey: { challenge: bytes(1), allowCredentials, extensions: { appid: 'not a URL' } } }, 'chromium'), 'chromium', toBase64url);
  assert.equal(get(ids(65)), null);
  assert.equal(get(ids(64))[0], 'SyntaxError');
  const create = (excludeCredentials) => webidl.browserRefusal('create', webidl.convertOptions('create', creation({ excludeCredentials, extensions: { prf: { eval: { first: new Uint8Array(257) } } } }), 'chromium'), 'chromium', toBase64url);
  assert.equal(create(ids(65)), null);
  assert.equal(create(ids(64))[0], 'NotSupportedError');
});

test('Chromium refuses null for a dictionary with a required member; records and their values in each browser\'s words', () => {
  const get = (extensions, browser) => webidl.convertOptions('get', { publicKey: { challenge: bytes(1), extensions } }, browser);
  assert.throws(() => get({ prf: { eval: null } }, 'chromium'), { message: /Failed to read the 'eval' property from 'AuthenticationExtensionsPRFInputs': The provided value is not of type 'AuthenticationExtensionsPRFValues'\.$/ });
  assert.throws(() => get({ prf: { eval: null } }, 'firefox'), { message: "CredentialsContainer.get: Missing required 'first' member of AuthenticationExtensionsPRFValues." });
  assert.deepEqual(Object.keys(get({ largeBlob: null }, 'chromium').publicKey.extensions.largeBlob), [], 'no required member: empty');
  assert.throws(() => get({ prf: { evalByCredential: true } }, 'chromium'), { message: /Failed to read the 'evalByCredential' property from 'AuthenticationExtensionsPRFInputs': Only objects can be converted to record<K,V> types$/ });
  assert.throws(() => get({ prf: { evalByCredential: 1 } }, 'firefox'), { message: "CredentialsContainer.get: 'evalByCredential' member of AuthenticationExtensionsPRFInputs is not an object." });
  assert.throws(() => get({ prf: { evalByCredential: { AQ: 'x' } } }, 'firefox'), { message: "CredentialsContainer.get: Value in 'evalByCredential' member of AuthenticationExtensionsPRFInputs can't be converted to a dictionary." });
  assert.throws(() => get({ prf: { evalByCredential: { AQ: null } } }, 'chromium'), { message: /The provided value is not of type 'AuthenticationExtensionsPRFValues'\.$/ });
});

test('Firefox reads an appid of "null" as none (the caller\'s origin, as the host reads an empty one); Chromium as the string', () => {
  const appid = (value, browser) => json(webidl.convertOptions('get', { publicKey: { challenge: bytes(1), extensions: { appid: value } } }, browser).publicKey).extensions.appid;
  assert.equal(appid(null, 'firefox'), '');
  assert.equal(appid('null', 'firefox'), '');
  assert.equal(appid(null, 'chromium'), 'null');
  assert.equal(appid('https://example.com', 'firefox'), 'https://example.com');
});

test('Firefox\'s credentialProtectionPolicy is an enumeration; Chromium\'s any string', () => {
  assert.equal(createJSON({ extensions: { credentialProtectionPolicy: 'bogus' } }).extensions.credentialProtectionPolicy, 'bogus');
  assert.throws(() => createJSON({ extensions: { credentialProtectionPolicy: 'bogus' } }, 'firefox'), {
    message: "CredentialsContainer.create: 'bogus' (value of 'credentialProtectionPolicy' member of AuthenticationExtensionsClientInputs) is not a valid value for enumeration CredentialProtectionPolicy.",
  });
});

test('the IDL value replays to the browser without running a page getter again', () => {
  let reads = 0;
  const options = { get publicKey() { reads++; return { challenge: bytes(1) }; }, mediation: 'conditional' };
  const converted = webidl.convertOptions('get', options, 'chromium');
  assert.equal(reads, 1);
  assert.equal(Object.getPrototypeOf(converted), null, 'no Object.prototype getter is reached through it');
  assert.equal(converted.publicKey.challenge instanceof Uint8Array, true);
  assert.equal(converted.mediation, 'conditional');
});

test('the page world tells the browsers apart by their engine', () => {
  assert.equal(webidl.browserOf(globalThis), 'chromium');
  class SpiderMonkeyError extends Error { constructor() { super(); this.columnNumber = 1; } }
  assert.equal(webidl.browserOf({ Error: SpiderMonkeyError }), 'firefox');
});
