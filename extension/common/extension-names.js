/*
 * extension-names.js — the names the background and the extension's own pages (popup, options, security-key
 * window) share: the settings in storage.local, the message a page asks the background's state with, and the
 * security-key window's page and port.
 */

/** storage.local: the per-site switch, string[] (options page → background/site-list.js). */
export const SITES_KEY = 'browserSites';

/** storage.local: Chromium's proxy path (background/proxy.js), true/false; unset → PROXY_DEFAULT. */
export const PROXY_KEY = 'proxyPath';
export const PROXY_DEFAULT = true;

/** runtime.sendMessage({kind: STATUS_MESSAGE, refresh}) from a page → the background's status(). */
export const STATUS_MESSAGE = 'bridge-status';

/** The security-key window (background/prompt-window.js opens it; prompt/prompt.js connects back on this port). */
export const PROMPT_PAGE_PATH = 'prompt/prompt.html';
export const PROMPT_PORT_NAME = 'webauthn-bridge-prompt';

/** The Security keys page (keys/): opened in a tab from the popup, and from the security-key window when a key is
 *  full. It talks to the host on a connection of its own (keys/session.js). */
export const KEYS_PAGE_PATH = 'keys/keys.html';
