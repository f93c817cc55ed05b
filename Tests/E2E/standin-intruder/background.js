'use strict';
// Opens the stand-in's own page, from which the tests run its probes (probe.js): Firefox's BiDi cannot open a
// moz-extension:// page itself.
const ext = globalThis.browser ?? globalThis.chrome;
ext.runtime.onInstalled.addListener(() => ext.tabs.create({ url: 'probe.html', active: false }));
