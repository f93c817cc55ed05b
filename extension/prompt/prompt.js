/*
 * prompt.js — the security-key window's page: connects to the background (background/prompt-window.js), shows
 * each view it sends (view.js) and fits the window's height to what it shows (window-size.js).
 */
import { KEYS_PAGE_PATH, PROMPT_PORT_NAME } from '../common/extension-names.js';
import { createPromptView } from './view.js';
import { fitToContent } from './window-size.js';

const ext = globalThis.browser ?? globalThis.chrome;
const port = ext.runtime.connect({ name: PROMPT_PORT_NAME });
// One resize at a time, each measuring afresh: views may arrive faster than the window resizes. The document
// says while a resize is under way (data-layout="fitting"), for styles and for tests that click.
let resizing = Promise.resolve();
let resizesQueued = 0;
const fit = () => {
  resizesQueued += 1;
  document.documentElement.dataset.layout = 'fitting';
  resizing = resizing.then(() => fitToContent(document, window, ext)).catch(() => { /* it scrolls as it is */ })
    .finally(() => {
      resizesQueued -= 1;
      if (resizesQueued === 0) document.documentElement.dataset.layout = 'settled';
    });
};
const view = createPromptView(document, port, { now: () => performance.now() },
  { openKeysPage: () => ext.tabs.create({ url: ext.runtime.getURL(KEYS_PAGE_PATH) }) });
// The background refused this page (a copy of it outside the window opened for it) or closed the port: nothing here
// acts any more. data-port says so, for tests.
port.onDisconnect.addListener(() => { document.documentElement.dataset.port = 'closed'; });
port.onMessage.addListener((message) => {
  if (!message || message.kind !== 'view') return;
  view.render(message);
  fit();
});
