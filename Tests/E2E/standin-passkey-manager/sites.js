/*
 * sites.js — ISOLATED world: the origins this stand-in keeps passkeys for (a password manager's vault, reduced to a
 * list). The tests write their copy's list (Tests/E2E/harness/standin.py); this one serves no site.
 */
'use strict';
globalThis.STANDIN_SITES = [];
