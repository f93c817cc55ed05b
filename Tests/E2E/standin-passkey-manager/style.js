/*
 * style.js — MAIN world, before page.js: how the stand-in wraps navigator.credentials, "assign" (Bitwarden's and
 * Proton Pass's way) or "replace" (KeePassXC-Browser's), and whether it hands a request on with a copy of its
 * options. The tests write their copy's (Tests/E2E/harness/standin.py).
 */
'use strict';
globalThis.STANDIN_STYLE = 'assign';
globalThis.STANDIN_COPIES = false;
