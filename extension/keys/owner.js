/*
 * owner.js — the Security keys page's sections for the key's owner: its PIN (created or changed, both entered in the
 * host's PIN dialog, never here), its settings (authenticatorConfig: always ask for verification, the minimum PIN
 * length, a forced PIN change) and its reset (confirmed here, then by a touch of the key). Each change answers with
 * the key's facts read again, which the whole page shows.
 */
import { resetQuestion, settingsState } from './view.js';

/** `page`: keys.js's {session, busy, confirm, showKey, device(), key()}. */
export function createOwnerSection(page) {
  const $ = (id) => document.getElementById(id);
  const apply = (request, words) => page.busy(async () => page.showKey(await request()), words);

  $('pin-create').addEventListener('click', (event) => event.isTrusted
    && apply(() => page.session.setPIN(page.device()), 'The PIN is created.'));
  $('pin-change').addEventListener('click', (event) => event.isTrusted
    && apply(() => page.session.changePIN(page.device()), 'The PIN is changed.'));
  $('always-uv').addEventListener('change', (event) => {
    const on = $('always-uv').checked;
    $('always-uv').checked = !on;   // shown as the key says, once it has said so
    if (event.isTrusted) apply(() => page.session.configure(page.device(), 'always-uv', on), 'Saved.');
  });
  $('min-length-save').addEventListener('click', (event) => event.isTrusted
    && apply(() => page.session.configure(page.device(), 'min-pin-length', Number($('min-length').value)), 'Saved.'));
  $('force-change').addEventListener('click', (event) => event.isTrusted
    && apply(() => page.session.configure(page.device(), 'force-pin-change', true),
      'The key will ask for a new PIN before its next use.'));
  $('reset').addEventListener('click', (event) => event.isTrusted
    && page.confirm(resetQuestion(page.key()), 'Reset', () => apply(() => page.session.reset(page.device()),
      'The security key is reset: it has no passkeys, no PIN and no fingerprints.')));

  return {
    show(key) {
      const state = settingsState(key);
      $('pin-section').hidden = !state.pin;
      $('pin-create').hidden = !state.canCreatePIN;
      $('pin-change').hidden = !state.canChangePIN;
      $('settings-section').hidden = !state.settings;
      $('always-uv-row').hidden = !state.alwaysUV;
      $('always-uv').checked = state.alwaysUVOn;
      $('min-length-row').hidden = !state.minPINLength;
      $('min-length').min = String(state.minimum);
      $('min-length').value = String(state.minimum);
      $('force-change-row').hidden = !state.forcePINChange;
      $('reset-section').hidden = !state.reset;
    },
  };
}
