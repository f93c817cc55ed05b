/*
 * popup.js — the toolbar button's popup: asks the background (background/main.js) for its status and shows it
 * (view.js): first the state the background has, then again once the host has answered a fresh `info` (keys
 * plugged in meanwhile).
 */
import { KEYS_PAGE_PATH, STATUS_MESSAGE } from '../common/extension-names.js';
import { render } from './view.js';

const ext = globalThis.browser ?? globalThis.chrome;
const ask = (refresh) => ext.runtime.sendMessage({ kind: STATUS_MESSAGE, refresh });
const failed = (error) => {
  document.getElementById('host').textContent = `The background did not answer: ${error && error.message}`;
};
document.getElementById('options').addEventListener('click', (event) => {
  event.preventDefault();
  ext.runtime.openOptionsPage().then(() => window.close(), () => {});
});
// The Security keys page in a tab of its own (a popup closes when it loses the focus, as to pinentry).
document.getElementById('manage-keys').addEventListener('click', (event) => {
  event.preventDefault();
  ext.tabs.create({ url: ext.runtime.getURL(KEYS_PAGE_PATH) }).then(() => window.close(), () => {});
});
// data-view: "first" once the background's state shows, "fresh" once the host's new `info` does (tests wait on it).
const show = (status, view) => {
  render(document, status);
  document.documentElement.dataset.view = view;
};
ask(false).then((status) => {
  show(status, 'first');
  return ask(true).then((fresh) => show(fresh, 'fresh'));
}).catch(failed);
