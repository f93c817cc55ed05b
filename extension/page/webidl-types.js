/*
 * webidl-types.js — the WebIDL conversions (§3.2: dictionaries, sequences, records, strings, numbers, BufferSource,
 * AbortSignal) as Chromium 156 and Firefox 153 perform them, each failure a TypeError with the browser's own text;
 * and an IDL value's encoding as the protocol's JSON, BufferSources' bytes read then. page/webidl.js declares the
 * WebAuthn dictionaries with them.
 *
 * Runs in the page's MAIN world at document_start, first of the content-script entry, and in node (CommonJS). It
 * hands itself to webidl.js through a non-enumerable `Symbol.for('webauthn-bridge.webidl-types')` property that
 * interceptor.js deletes, as it does codec.js's.
 *
 * Each dictionary member is read once, inherited dictionaries first, members in lexicographic order, and
 * converted before the next is read: a getter with side effects sees what it sees in the browser, and a getter
 * that throws rejects with its own exception. Unknown members are never read. What a conversion answers is an IDL
 * value: null-prototype objects and arrays holding only converted values (strings, numbers, booleans, the page's
 * own BufferSource and AbortSignal objects).
 */
(function (root) {
  'use strict';

  // Captured now, before any page script can replace them.
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { create, defineProperty, getOwnPropertyDescriptor, getPrototypeOf } = Object;
  const { apply, ownKeys } = Reflect;
  const { trunc } = Math;
  const isFiniteNumber = Number.isFinite;
  const isView = ArrayBuffer.isView;
  const isArray = Array.isArray;
  const iteratorKey = Symbol.iterator;
  const TypeErrorCtor = root.TypeError;
  const Uint8 = Uint8Array;

  function getter(proto, key) {
    const descriptor = proto ? getOwnPropertyDescriptor(proto, key) : undefined;
    return descriptor && typeof descriptor.get === 'function' ? uncurry(descriptor.get) : null;
  }

  // SharedArrayBuffer is no global outside cross-origin-isolated documents, but wasm shared memory still makes one.
  function sharedPrototype() {
    if (typeof SharedArrayBuffer === 'function') return SharedArrayBuffer.prototype;
    try {
      return getPrototypeOf(new WebAssembly.Memory({ initial: 0, maximum: 0, shared: true }).buffer);
    } catch (_) {
      return null;
    }
  }

  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
  const bufferResizable = getter(ArrayBuffer.prototype, 'resizable');
  const bufferDetached = getter(ArrayBuffer.prototype, 'detached');
  const SHARED = sharedPrototype();
  const sharedLength = getter(SHARED, 'byteLength');
  const sharedGrowable = getter(SHARED, 'growable');
  const typedBuffer = getter(TypedArrayPrototype, 'buffer');
  const typedOffset = getter(TypedArrayPrototype, 'byteOffset');
  const typedLength = getter(TypedArrayPrototype, 'byteLength');
  const dataViewBuffer = getter(DataView.prototype, 'buffer');
  const dataViewOffset = getter(DataView.prototype, 'byteOffset');
  const dataViewLength = getter(DataView.prototype, 'byteLength');
  const typedSet = uncurry(TypedArrayPrototype.set);
  const abortSignalAborted = typeof AbortSignal === 'function' ? getter(AbortSignal.prototype, 'aborted') : null;
  const wellFormed = typeof String.prototype.toWellFormed === 'function' ? uncurry(String.prototype.toWellFormed) : null;

  function holds(check, value) {
    if (!check) return false;
    try {
      check(value);
      return true;
    } catch (_) {
      return false;
    }
  }

  const isArrayBuffer = (value) => holds(bufferLength, value);
  const isShared = (value) => holds(sharedLength, value);
  const isTypedArray = (value) => holds(typedBuffer, value);
  const isResizable = (buffer) => (isShared(buffer) ? Boolean(sharedGrowable && sharedGrowable(buffer))
    : Boolean(bufferResizable && bufferResizable(buffer)));

  function isDetached(buffer) {
    if (isShared(buffer)) return false;
    if (bufferDetached) return bufferDetached(buffer);
    try {
      new Uint8(buffer, 0, 0); // eslint-disable-line no-new
      return false;
    } catch (_) {
      return true;
    }
  }

  // Building values: defineProperty, so a setter the page put on Object.prototype or Array.prototype never runs.
  function put(target, key, value) {
    defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  }

  function append(list, value) {
    put(list, list.length, value);
  }

  // ---- Error texts: each browser's own wording for each failed conversion ---------------------------------------

  /**
   * `at` is the member being converted: {member, dict, parent}, parent the member around it (null at the top).
   * Chromium names every member on the way down; Firefox names the innermost one, in its own phrasing.
   */
  const TEXTS = {
    chromium: {
      prefix: (op) => `Failed to execute '${op}' on 'CredentialsContainer': `,
      path(at) {
        let text = '';
        for (let frame = at; frame; frame = frame.parent) {
          text = `Failed to read the '${frame.member}' property from '${frame.dict}': ${text}`;
        }
        return text;
      },
      required: () => 'Required member is undefined.',
      dictionary: (at, type) => `The provided value is not of type '${type}'.`,
      sequence: (at, value) => (isObject(value) ? 'The object must have a callable @@iterator property.'
        : 'The provided value cannot be converted to a sequence.'),
      record: () => 'Only objects can be converted to record<K,V> types',
      buffer: () => "The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.",
      resizable: (at, view) => `The provided ${view ? 'ArrayBufferView' : 'ArrayBuffer'} value must not be resizable.`,
      shared: (at, view) => (view ? 'The provided ArrayBufferView value must not be shared.'
        : "Failed to convert value to 'ArrayBuffer'."),
      enumeration: (at, value, type) => `The provided value '${value}' is not a valid enum value of type ${type}.`,
      signal: () => "Failed to convert value to 'AbortSignal'.",
      engine: (at, message) => message,
    },
    firefox: {
      prefix: (op) => `CredentialsContainer.${op}: `,
      path: () => '',
      required: (at) => `Missing required '${at.member}' member of ${at.dict}.`,
      dictionary: (at) => (!at ? "Argument 1 can't be converted to a dictionary."
        : at.element ? `Element of '${at.member}' member of ${at.dict} can't be converted to a dictionary.`
          : at.recordValue ? `Value in '${at.member}' member of ${at.dict} can't be converted to a dictionary.`
          : at.required ? "Value can't be converted to a dictionary."
            : `'${at.member}' member of ${at.dict} can't be converted to a dictionary.`),
      sequence: (at) => `'${at.member}' member of ${at.dict} can't be converted to a sequence.`,
      record: (at) => `'${at.member}' member of ${at.dict} is not an object.`,
      buffer: (at) => `'${at.member}' member of ${at.dict} could not be converted to any of: ArrayBufferView, ArrayBuffer.`,
      resizable: (at, view) => `${view ? 'ArrayBufferView' : 'ArrayBuffer'} branch of (ArrayBufferView or ArrayBuffer) can't be a resizable ArrayBuffer or ArrayBufferView`,
      shared: (at, view) => `${view ? 'ArrayBufferView' : 'ArrayBuffer'} branch of (ArrayBufferView or ArrayBuffer) can't be a SharedArrayBuffer or an ArrayBufferView backed by a SharedArrayBuffer`,
      enumeration: (at, value, type) => `'${value}' (value of '${at.member}' member of ${at.dict}) is not a valid value for enumeration ${type}.`,
      signal: (at, value) => (value === null || (typeof value !== 'object' && typeof value !== 'function')
        ? `'${at.member}' member of ${at.dict} is not an object.`
        : `'${at.member}' member of ${at.dict} does not implement interface AbortSignal.`),
      engine: null, // SpiderMonkey's own text, as it is
    },
  };

  function fail(ctx, at, kind, a, b) {
    const texts = TEXTS[ctx.browser];
    throw new TypeErrorCtor(texts.prefix(ctx.op) + texts.path(at) + texts[kind](at, a, b));
  }

  /** ToString/ToNumber of a Symbol or BigInt: the engine's TypeError, which Chromium puts behind its path. */
  function engineConversion(convert, value, at, ctx) {
    if (typeof value !== 'symbol' && typeof value !== 'bigint') return convert(value);
    try {
      return convert(value);
    } catch (error) {
      if (!TEXTS[ctx.browser].engine) throw error;
      return fail(ctx, at, 'engine', error.message);
    }
  }

  const isObject = (value) => value !== null && (typeof value === 'object' || typeof value === 'function');

  // ---- Types ------------------------------------------------------------------------------------------------------

  const toText = (value) => `${value}`;
  const toNumber = (value) => +value;

  /** DOMString: ToString (numbers, booleans, arrays, objects with toString/valueOf; a Symbol throws). */
  const domString = (value, at, ctx) => engineConversion(toText, value, at, ctx);

  /** unsigned long: ToNumber (a BigInt or Symbol throws), NaN and ±Infinity → 0, truncated, modulo 2^32. */
  function unsignedLong(value, at, ctx) {
    const number = engineConversion(toNumber, value, at, ctx);
    if (!isFiniteNumber(number)) return 0;
    const wrapped = trunc(number) % 4294967296;
    return wrapped < 0 ? wrapped + 4294967296 : wrapped + 0; // + 0 turns -0 into 0
  }

  /** long: as unsigned long, then 2^31 and above wrap to negative. */
  function long(value, at, ctx) {
    const wrapped = unsignedLong(value, at, ctx);
    return wrapped >= 2147483648 ? wrapped - 4294967296 : wrapped;
  }

  const boolean = (value) => !!value;

  /** (ArrayBufferView or ArrayBuffer), as both browsers refuse: shared and resizable buffers. Answers the page's
   *  own object; its bytes are read by `encode`, after the whole conversion, as the browsers copy them. */
  function bufferSource(value, at, ctx) {
    if (isObject(value)) {
      if (isView(value)) {
        const buffer = isTypedArray(value) ? typedBuffer(value) : dataViewBuffer(value);
        if (isShared(buffer)) fail(ctx, at, 'shared', true);
        if (isResizable(buffer)) fail(ctx, at, 'resizable', true);
        return value;
      }
      if (isArrayBuffer(value)) {
        if (isResizable(value)) fail(ctx, at, 'resizable', false);
        return value;
      }
      if (isShared(value)) fail(ctx, at, 'shared', false);
    }
    return fail(ctx, at, 'buffer');
  }

  /** sequence<T> from any iterable, each element converted as it comes (WebIDL "create a sequence from an
   *  iterable": no iterator close on a failure). */
  function sequence(item) {
    return (value, at, ctx) => {
      if (!isObject(value)) fail(ctx, at, 'sequence', value);
      const method = value[iteratorKey];
      if (typeof method !== 'function') fail(ctx, at, 'sequence', value);
      const iterator = apply(method, value, []);
      if (!isObject(iterator)) throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
      const next = iterator.next;
      const out = [];
      for (;;) {
        const step = apply(next, iterator, []);
        if (!isObject(step)) throw new TypeErrorCtor(`Iterator result ${typeof step === 'symbol' ? 'Symbol()' : `${step}`} is not an object`);
        if (step.done) return out;
        append(out, item(step.value, { member: at.member, dict: at.dict, parent: at.parent, element: true }, ctx));
      }
    };
  }

  /** record<DOMString, T>: the object's own enumerable string keys, in its own order. */
  function record(item) {
    return (value, at, ctx) => {
      if (!isObject(value)) fail(ctx, at, 'record');
      const out = create(null);
      const keys = ownKeys(value);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (typeof key !== 'string') continue;
        const descriptor = getOwnPropertyDescriptor(value, key);
        const frame = { member: at.member, dict: at.dict, parent: at.parent, recordValue: true };
        if (descriptor !== undefined && descriptor.enumerable) put(out, key, item(value[key], frame, ctx));
      }
      return out;
    };
  }

  /** A WebIDL enumeration (not the DOMStrings WebAuthn uses for its enumerations, which take any value). */
  function enumeration(type, values) {
    return (value, at, ctx) => {
      const text = domString(value, at, ctx);
      for (let i = 0; i < values.length; i++) if (values[i] === text) return text;
      return fail(ctx, at, 'enumeration', text, type);
    };
  }

  function abortSignal(value, at, ctx) {
    if (!holds(abortSignalAborted, value)) fail(ctx, at, 'signal', value);
    return value;
  }

  /** A member the bridge never serves (password, federated, identity, otp, digital): kept as the page gave it,
   *  for the browser's own create()/get() to convert. */
  const unconverted = (value) => value;

  /**
   * A dictionary type: `members` are [name, type, flags], in conversion order (inherited first, then
   * lexicographic); flags: `required`, `from` (the dictionary declaring it, for messages), `only` (the one
   * browser that reads it).
   */
  function dictionary(name, members) {
    let hasRequired = false;
    for (let i = 0; i < members.length; i++) if (members[i][2].required) hasRequired = true;
    const convert = (value, at, ctx) => {
      // Chromium refuses null or undefined for a dictionary type with a required member (publicKey, rp, a
      // descriptor, prf.eval …); elsewhere both are an empty dictionary, as WebIDL says.
      if (at && ctx.browser === 'chromium' && hasRequired && (value === null || value === undefined)) {
        fail(ctx, at, 'dictionary', name);
      }
      if (value !== undefined && value !== null && !isObject(value)) fail(ctx, at, 'dictionary', name);
      const out = create(null);
      for (let i = 0; i < members.length; i++) {
        const entry = members[i];
        const key = entry[0];
        const flags = entry[2];
        if (flags.only && flags.only !== ctx.browser) continue;
        const frame = { member: key, dict: flags.from || name, parent: at, required: flags.required === true };
        const raw = value === undefined || value === null ? undefined : value[key];
        if (raw === undefined) {
          if (flags.required) fail(ctx, frame, 'required');
          continue;
        }
        put(out, key, entry[1](raw, frame, ctx));
      }
      return out;
    };
    convert.members = members;
    return convert;
  }

  const member = (name, type, flags = {}) => [name, type, flags];
  const required = { required: true };
  const chromium = { only: 'chromium' };

  // ---- To the host: the protocol's JSON ----------------------------------------------------------------------------

  /** A BufferSource's bytes now: a view's own window, a detached buffer's none. */
  function bytesOf(source) {
    let buffer = source;
    let offset = 0;
    let length;
    if (isView(source)) {
      const typed = isTypedArray(source);
      buffer = typed ? typedBuffer(source) : dataViewBuffer(source);
      if (isDetached(buffer)) return new Uint8(0);
      offset = typed ? typedOffset(source) : dataViewOffset(source);
      length = typed ? typedLength(source) : dataViewLength(source);
    } else {
      if (isDetached(buffer)) return new Uint8(0);
      length = bufferLength(buffer);
    }
    const out = new Uint8(length);
    typedSet(out, new Uint8(buffer, offset, length));
    return out;
  }

  /** UTF-8 cannot carry a lone surrogate: the host gets U+FFFD for it, as the browsers send the key. */
  function wellFormedString(text) {
    if (wellFormed) return wellFormed(text);
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += text[i] + text[i + 1];
        i++;
      } else {
        out += unit >= 0xd800 && unit <= 0xdfff ? '\ufffd' : text[i];
      }
    }
    return out;
  }

  /**
   * An IDL value → the protocol's JSON, with every BufferSource as `binary(its bytes)` (read now): codec.js's
   * binaryValue, the protocol's binary marker, which codec.js alone spells in this world.
   */
  function encode(value, binary) {
    if (typeof value === 'string') return wellFormedString(value);
    if (value === null || typeof value !== 'object') return value;
    if (isView(value) || isArrayBuffer(value)) return binary(bytesOf(value));
    if (isArray(value)) {
      const out = [];
      for (let i = 0; i < value.length; i++) append(out, encode(value[i], binary));
      return out;
    }
    const out = {};
    const keys = ownKeys(value);
    for (let i = 0; i < keys.length; i++) put(out, keys[i], encode(value[keys[i]], binary));
    return out;
  }

  const types = Object.freeze({
    domString, unsignedLong, long, boolean, bufferSource, sequence, record, enumeration, abortSignal, unconverted,
    dictionary, member, required, chromium, isObject, fail, append, encode, bytesOf,
  });

  if (typeof module === 'object' && module && module.exports) {
    module.exports = types;
  } else {
    defineProperty(root, Symbol.for('webauthn-bridge.webidl-types'), { value: types, configurable: true, enumerable: false });
  }
})(globalThis);
