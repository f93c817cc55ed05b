/*
 * prompt.js — the security-key window's page: connects to the background (background/prompt-window.js), shows
 * each view it sends (view.js) and fits the window's height to what it shows (window-size.js).
 */
import { PROMPT_PORT_NAME } from '../common/extension-names.js';
import { createPromptView } from './view.js';
import { fitToContent } from './window-size.js';

const ext = globalThis.browser ?? globalThis.chrome;
const port = ext.runtime.connect({ name: PROMPT_PORT_NAME });
// One resize at a time, each measuring afresh: views may arrive faster than the window resizes.
let resizing = Promise.resolve();
const fit = () => {
  resizing = resizing.then(() => fitToContent(document, window, ext)).catch(() => { /* it scrolls as it is */ });
};
const view = createPromptView(document, port, { now: () => performance.now() });
port.onMessage.addListener((message) => {
  if (!message || message.kind !== 'view') return;
  view.render(message);
  fit();
});
