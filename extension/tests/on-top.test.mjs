// page/on-top.js: the bridge's function on the container, on top of a wrapper that ran first, through that
// wrapper's teardown (Bitwarden's: what it found, the browser's own, assigned back) and later assignments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { keepOnTop } = require('../page/on-top.js');

/** A container whose prototype has the browser's own `create` (a class method: its source is readable in node, so a
 *  native-reading bound copy is made from a built-in here), with the bridge's function kept on top. */
function setUp() {
  const native = Array.prototype.push;   // any built-in: its bound copy reads as native, as the browser's does
  const container = {};
  const bridge = function create() { return 'bridge'; };
  const putBack = [];
  const shown = [];
  keepOnTop(container, 'create', bridge, native, (value) => putBack.push(value), (fn, name) => shown.push(name));
  return { container, native, bridge, putBack, shown };
}

/** A bound copy of `fn` named "bound create", as `navigator.credentials.create.bind(navigator.credentials)` is. */
function boundCreate(fn) {
  const bound = fn.bind(null);
  Object.defineProperty(bound, 'name', { value: 'bound create' });
  return bound;
}

test('an accessor, enumerable and configurable, whose getter and setter read as native ones', () => {
  const { container, bridge, shown } = setUp();
  const descriptor = Object.getOwnPropertyDescriptor(container, 'create');
  assert.equal(typeof descriptor.get, 'function');
  assert.equal(typeof descriptor.set, 'function');
  assert.equal(descriptor.enumerable && descriptor.configurable, true);
  assert.equal(container.create, bridge);
  assert.deepEqual(shown, ['get create', 'set create']);
});

test('the browser\'s own put back (itself, or bound) goes below the bridge, which stays on top', () => {
  const { container, native, bridge, putBack } = setUp();
  container.create = native;
  const bound = boundCreate(native);
  container.create = bound;
  assert.deepEqual(putBack, [native, bound]);
  assert.equal(container.create, bridge);
});

test('another wrapper assigned goes on top, and so does whatever is assigned after it', () => {
  const { container, native, putBack } = setUp();
  const wrapper = function createWebAuthnCredential() { return 'wrapper'; };
  container.create = wrapper;
  assert.equal(container.create, wrapper);
  const bound = boundCreate(native);
  container.create = bound;   // that wrapper's own teardown, putting back what it found
  assert.equal(container.create, bound);
  assert.deepEqual(putBack, []);
});

test('a function only named "bound create", its source readable, is no put-back; nor is a value that throws when read', () => {
  const { container, putBack } = setUp();
  const impostor = function () { return 'page'; };
  Object.defineProperty(impostor, 'name', { value: 'bound create' });
  container.create = impostor;
  assert.equal(container.create, impostor);
  const fresh = setUp();
  const hostile = new Proxy(function () {}, { get() { throw new Error('no'); } });
  fresh.container.create = hostile;
  assert.equal(fresh.container.create, hostile);
  assert.deepEqual([...putBack, ...fresh.putBack], []);
});

test('a redefinition replaces the accessor (Object.defineProperty, exportFunction)', () => {
  const { container } = setUp();
  const other = () => 'other';
  Object.defineProperty(container, 'create', { value: other, writable: true, enumerable: true, configurable: true });
  assert.equal(container.create, other);
  assert.equal(Object.getOwnPropertyDescriptor(container, 'create').get, undefined);
});

test('assigned through an object that inherits from the container: that object\'s own, as on a plain property', () => {
  const { container, native, bridge, putBack } = setUp();
  const derived = Object.create(container);
  derived.create = boundCreate(native);   // through the setter: not a put-back of the container's
  assert.equal(Object.hasOwn(derived, 'create') && derived.create.name, 'bound create');
  assert.equal(container.create, bridge);
  assert.deepEqual(putBack, []);
});
