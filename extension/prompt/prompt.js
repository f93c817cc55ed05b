/*
 * prompt.js — the security-key window's page: connects to the background (background/prompt-window.js) and shows
 * each view it sends (view.js), growing the window when the account list does not fit.
 */
import { PROMPT_PORT_NAME } from '../common/extension-names.js';
import { createPromptView } from './view.js';

const ext = globalThis.browser ?? globalThis.chrome;
const port = ext.runtime.connect({ name: PROMPT_PORT_NAME });
const grow = async (pixels) => {
  const own = await ext.windows.getCurrent();
  const height = Math.min(own.height + pixels, Math.round(screen.availHeight * 0.8));
  if (height > own.height) await ext.windows.update(own.id, { height });
};
const view = createPromptView(document, port, { now: () => performance.now() }, grow);
port.onMessage.addListener((message) => { if (message && message.kind === 'view') view.render(message); });
