/*
 * teardown.js — MAIN world, between style.js and page.js: what Bitwarden's page script does when it is torn down
 * (its content script's port disconnects: the extension reloaded or updated, its passkeys switched off, the site
 * excluded or the user logged out): it assigns back on navigator.credentials the create/get it found when it ran,
 * bound to that object. Here the same bound copies page.js is about to find are put back when the page gets the
 * window message {channel: "standin-passkey-manager", dir: "teardown"}, a test's stand-in for the disconnect.
 * KeePassXC-Browser's way ("replace", style.js) puts nothing back.
 */
(function () {
  'use strict';

  const creds = navigator.credentials;
  if (globalThis.STANDIN_STYLE === 'replace' || !creds || typeof creds.create !== 'function') return;
  const found = { create: creds.create.bind(creds), get: creds.get.bind(creds) };
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source !== window || !data || data.channel !== 'standin-passkey-manager' || data.dir !== 'teardown') return;
    creds.create = found.create;
    creds.get = found.get;
  });
})();
