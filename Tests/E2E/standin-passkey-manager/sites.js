/*
 * sites.js — ISOLATED world: the origins this stand-in keeps passkeys for (a password manager's vault, reduced to a
 * list), and whether its conditional answers race what it found (page.js). The tests write their copy's
 * (Tests/E2E/harness/standin.py); this one serves no site.
 */
'use strict';
globalThis.STANDIN_SITES = [];
globalThis.STANDIN_RACES = false;
