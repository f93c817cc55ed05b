/*
 * modules.js — how a background file reaches another: require() under node, the name the other file set on the
 * background's global in the browsers (loaded before it by background.scripts / importScripts, in the
 * manifest's order). Exposes `WebAuthnBridgeModules` on that global, or module.exports under node.
 */
(function (root) {
  'use strict';

  const underNode = typeof module === 'object' && module && module.exports;

  /** The module at `path` (relative to background/, as every caller is) that sets `globalName` in a browser. */
  function loaded(path, globalName) {
    return underNode ? require(path) : root[globalName];
  }

  const api = Object.freeze({ loaded });
  if (underNode) module.exports = api;
  else root.WebAuthnBridgeModules = api;
})(globalThis);
