/*
 * on-top.js — MAIN world, document_start, all frames, before interceptor.js (and in node, CommonJS).
 *
 * Where a password manager's page script ran first and assigned its own create/get on navigator.credentials, the
 * bridge puts its own there, on top of them (docs/extension.md, "Beside password managers"). Such a script may be
 * torn down while the page stays and then assign back what it found: Bitwarden's does when its content script's port
 * disconnects (its extension reloaded or updated, its passkeys switched off, the site excluded, its user logged out),
 * putting back the browser's own functions, bound. On a plain property that would drop the bridge from the page
 * until it reloads. So the bridge's function sits there behind an accessor: while it is what the page calls, an
 * assignment of the browser's own (the function itself, or a bound copy: named "bound create", its source native)
 * goes below the bridge instead (`onPutBack`), and the bridge stays on top. Anything else assigned (another
 * wrapper, which found the bridge's) is what the page calls from then on, as with a plain property; so is anything
 * assigned once that wrapper is on top. Redefining the property (Object.defineProperty, Firefox's exportFunction)
 * replaces the accessor.
 *
 * Not told apart: a bound copy of the bridge's own function (also "bound create", also native to read) assigned
 * while the bridge is on top is taken for the browser's own; what the bridge hands it comes straight back, and
 * interceptor.js sends that to the browser's own.
 */
(function (root) {
  'use strict';

  const { apply, defineProperty } = Reflect;
  const functionSource = Function.prototype.toString;
  const NATIVE_SOURCE = /\{\s*\[native code\]\s*\}\s*$/;

  /** Whether `value` is `native`, or reads as a bound copy of it: what a torn-down wrapper puts back. */
  function browsersOwn(value, native, name) {
    if (value === native) return true;
    try {
      return typeof value === 'function' && value.name === `bound ${name}`
        && NATIVE_SOURCE.test(apply(functionSource, value, []));
    } catch (_) {
      return false;   // a Proxy or a getter of the page's that throws: not the browser's own
    }
  }

  /**
   * `container[name]` := `fn`, on top of the wrapper assigned there, as an enumerable, configurable accessor whose
   * getter and setter read as native (`showAsNative`, page/credential.js). `native` is the browser's own function
   * (the prototype's); `onPutBack(value)` gets what a torn-down wrapper put back while `fn` was on top.
   */
  function keepOnTop(container, name, fn, native, onPutBack, showAsNative) {
    let top = fn;
    const accessor = {
      get [name]() { return top; },
      set [name](value) {
        // Assigned through an object that inherits from the container: that object's own, as on a plain property.
        if (this !== container) {
          if (this !== null && (typeof this === 'object' || typeof this === 'function')) {
            defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
          }
          return;
        }
        if (top === fn && browsersOwn(value, native, name)) onPutBack(value);
        else top = value;
      },
    };
    const { get, set } = Object.getOwnPropertyDescriptor(accessor, name);
    showAsNative(get, `get ${name}`);
    showAsNative(set, `set ${name}`);
    defineProperty(container, name, { get, set, enumerable: true, configurable: true });
  }

  const api = Object.freeze({ keepOnTop });
  if (typeof module === 'object' && module && module.exports) {
    module.exports = api;
    return;
  }
  defineProperty(root, Symbol.for('webauthn-bridge.on-top'), { value: api, configurable: true, enumerable: false });
})(globalThis);
