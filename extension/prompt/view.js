/*
 * view.js — what the security-key window (prompt.html, wired by prompt.js; opened by background/prompt-window.js,
 * one per tab that needs the user) shows: which site asks (the rp.id and the origins the browser names — no text
 * the page chose, such as its title), what to do with the key ("touch", "enter your PIN"), the account chooser,
 * and why a request failed when the host says so.
 *
 * No page can reach this document: it is not web-accessible, so no page can frame it, and it is a window of
 * its own. Its choices still take only the presses common/activation-guard.js lets through (trusted, not repeated,
 * from ACTIVATION_DELAY_MS after the chooser appeared): a click or key meant for the page, or a key held down since
 * before the window popped up, must not choose an account. From the keyboard: the first account has the focus,
 * Up/Down or Tab move it, Enter or Space picks (on release), Escape is Cancel. The button that hands the request to
 * another way (a phone, a passkey manager, the browser's own) and "Try again" after a failure the user may retry
 * (background/try-again.js) follow the same rules, armed when they appear.
 *
 * The extension owns every sentence the user reads; the host sends status codes, data (the PIN attempts left)
 * and, at times, a detail in its own words (why a key cannot be used, why a request failed).
 */

import { createActivationGuard } from '../common/activation-guard.js';
import { ERROR_DETAILS } from '../common/protocol.js';

const TEXT = {
  'insert-key': 'Insert your security key.',
  'key-unusable': 'Your security key is plugged in but cannot be used.',
  'select-key': 'Touch the security key you want to use.',
  touch: 'Touch your security key.',
  pin: 'Enter your PIN in the dialog.',
  'set-pin': 'This site requires a PIN. Choose a PIN for your security key in the dialog.',
  uv: 'Verify yourself on your security key (fingerprint or built-in PIN).',
  processing: 'Working with your security key…',
  'select-account': 'Choose an account to sign in with.',
  'enroll-fingerprint': 'Touch the fingerprint sensor of your security key.',
  error: 'The security key request failed.',
};

/** The line under `pin` after a wrong PIN, from the attempts the key has left (the status's `attemptsLeft`). */
function wrongPINText(attemptsLeft) {
  return `Wrong PIN. ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left.`;
}

/** The sentence for a status; an unknown one reads as "processing" (its detail, if any, says more). */
export function statusText(status) {
  return Object.prototype.hasOwnProperty.call(TEXT, status) ? TEXT[status] : TEXT.processing;
}

/** The button that hands the request below the bridge, and its "always" box: the browser's own dialog offers a
 *  phone, a passkey manager or its own password manager from the same place. */
export const ANOTHER_WAY_TEXT = 'Use a phone, passkey manager or the browser\'s own';
export const ALWAYS_TEXT = 'Always for this site';
/** Chromium's label (IDS_WEBAUTHN_RETRY) on its error sheets that start the request over; their other button
 *  says Close (IDS_CLOSE). */
export const RETRY_TEXT = 'Try again';

/** The line under the sentence: the wrong-PIN line for a `pin` with attempts left, otherwise the host's
 *  detail, unless it only repeats the sentence already shown. */
export function detailText(status, detail, attemptsLeft = null) {
  if (status === 'pin' && Number.isInteger(attemptsLeft) && attemptsLeft >= 0) return wrongPINText(attemptsLeft);
  const text = typeof detail === 'string' ? detail.trim() : '';
  return text && text !== statusText(status) ? text : '';
}

/** Text the relying party chose (an account's names), without control and format characters: no
 *  right-to-left override or invisible character can make it read as something else. */
export function plainText(text) {
  return typeof text === 'string' ? text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').trim() : '';
}

/** The chooser's two lines for one account: the display name, then the account name. */
export function accountLabel(account) {
  const name = plainText(account && account.name);
  const display = plainText(account && account.displayName);
  if (display && name && display !== name) return { primary: display, secondary: name };
  return { primary: display || name || 'Unnamed account', secondary: '' };
}

/** The chooser's labels, never two alike: a key that was not asked for user verification may send no names
 *  (CTAP 2.1 keeps them until the user is verified), and two "Unnamed account" buttons would be a choice nobody can
 *  make. Labels that repeat say which of the list they are, in the key's order. */
export function accountLabels(accounts) {
  const labels = accounts.map(accountLabel);
  const key = (label) => `${label.primary}\n${label.secondary}`;
  const seen = new Map();
  for (const label of labels) seen.set(key(label), (seen.get(key(label)) || 0) + 1);
  return labels.map((label, index) => (seen.get(key(label)) > 1
    ? { primary: label.primary, secondary: [label.secondary, `account ${index + 1} of ${labels.length} on this key`].filter(Boolean).join(' · ') }
    : label));
}

/** What is asked, of which site: "Sign in to example.com" or "Register a passkey with example.com" (the rp.id, or
 *  the origin's host), as Chromium's dialog says "Use your security key with example.com"; then the origin and
 *  the embedding site, as the browser names them. The tab's title is the page's own words: never shown. */
export function siteLines(site) {
  const s = site || {};
  let host = '';
  try { host = new URL(s.origin).host; } catch (_) { host = ''; }
  const name = s.rpId || host;
  const action = s.type === 'create' ? 'Register a passkey with' : s.type === 'get' ? 'Sign in to' : '';
  const headline = name ? (action ? `${action} ${name}` : name) : 'Unknown site';
  let who = `Asked by ${s.origin || 'an unknown origin'}`;
  if (s.topOrigin) who += `, inside ${s.topOrigin}`;
  return { headline, who };
}

/** Whether a failure's reason is one the Security keys page fixes: the key has no room for another passkey. */
export function offersKeysPage(view) {
  return !!view && view.status === 'error' && view.detail === ERROR_DETAILS.keyStoreFull;
}

/** The view of `doc`; choices go to `port`. The window's size is prompt.js's (window-size.js); `openKeysPage()`
 *  opens the Security keys page (prompt.js: a tab). */
export function createPromptView(doc, port, clock, { openKeysPage = () => {} } = {}) {
  const el = (id) => doc.getElementById(id);
  let accountsShown = null; // the account list the buttons were built for
  // Whether the "another way" button and "Try again" are shown (each behind its guard).
  const offered = { another: false, retry: false };
  // Each guard's marker: data-chooser, data-another, data-retry ("waiting", then "armed").
  const MARKERS = { accounts: 'chooser', another: 'another', retry: 'retry' };
  const guard = createActivationGuard(clock, {
    mark: (which, state) => {
      if (state) doc.documentElement.dataset[MARKERS[which]] = state;
      else delete doc.documentElement.dataset[MARKERS[which]];
    },
    // The accounts (a choice by index) share the chooser's guard.
    guardOf: (choice) => (choice === 'another' || choice === 'retry' ? choice : 'accounts'),
    onActivate: choose,
  });

  function renderAccounts(accounts) {
    const list = el('accounts');
    if (accounts === accountsShown || JSON.stringify(accounts) === JSON.stringify(accountsShown)) return;
    accountsShown = accounts;
    list.replaceChildren();
    list.hidden = !accounts;
    if (!accounts) {
      guard.disarm('accounts');
      return;
    }
    const labels = accountLabels(accounts);
    accounts.forEach((account, index) => {
      const label = labels[index];
      const button = doc.createElement('button');
      button.type = 'button';
      button.textContent = label.primary; // textContent only: names come from the key, never parsed as HTML
      if (label.secondary) {
        const small = doc.createElement('span');
        small.className = 'secondary';
        small.textContent = label.secondary;
        button.appendChild(small);
      }
      button.dataset.index = String(index);
      guard.listenForPointer(button, index);
      const item = doc.createElement('li');
      item.appendChild(button);
      list.appendChild(item);
    });
    guard.arm('accounts');
    list.querySelector('button').focus();
  }

  /** Shows or hides `element` for choice `which` ('another' or 'retry'), armed anew each time it appears. */
  function renderOffer(which, element, shows) {
    el(element).hidden = !shows;
    if (shows === offered[which]) return;
    offered[which] = shows;
    if (shows) guard.arm(which);
    else guard.disarm(which);
  }

  function render(view) {
    const lines = siteLines(view.site);
    el('site').textContent = lines.headline;
    el('who').textContent = lines.who;
    doc.body.className = view.status === 'error' ? 'error' : '';
    el('text').textContent = statusText(view.status);
    const detail = detailText(view.status, view.detail, view.attemptsLeft);
    el('detail').textContent = detail;
    el('detail').hidden = !detail;
    renderAccounts(Array.isArray(view.accounts) && view.accounts.length ? view.accounts : null);
    renderOffer('another', 'another', view.anotherWay === true);
    el('manage-keys').hidden = !offersKeysPage(view);
    renderOffer('retry', 'retry', view.retry === true);
    el('close').textContent = view.final || view.retry === true ? 'Close' : 'Cancel';
    doc.title = `Security key — ${lines.headline}`;
  }

  /** What a press that counts chose: an account's index, 'another' or 'retry'. */
  function choose(choice) {
    if (choice === 'another') port.postMessage({ kind: 'another-way', always: el('always').checked === true });
    else if (choice === 'retry') port.postMessage({ kind: 'try-again' });
    else port.postMessage({ kind: 'select', index: choice });
  }

  /** The choice `event` is on: an account button's index, 'another' for the "another way" button, or null. */
  function choiceOf(event) {
    const target = event.target;
    if (target && target === el('another-way') && offered.another) return 'another';
    if (target && target === el('retry') && offered.retry) return 'retry';
    return target && target.dataset && target.parentNode && target.parentNode.parentNode === el('accounts')
      ? Number(target.dataset.index) : null;
  }

  function close(event) {
    if (event.isTrusted) port.postMessage({ kind: 'close' });
  }

  /** Up/Down move between the accounts (stopping at either end); Tab still moves on to Cancel. */
  function moveAmongAccounts(event, step) {
    const buttons = [...el('accounts').querySelectorAll('button')];
    const at = buttons.indexOf(doc.activeElement);
    if (at < 0) return;
    event.preventDefault(); // the arrow moves the focus, not the list's scroll position (focus() scrolls to it)
    buttons[Math.min(buttons.length - 1, Math.max(0, at + step))].focus();
  }

  el('another-way').textContent = ANOTHER_WAY_TEXT;
  el('always-text').textContent = ALWAYS_TEXT;
  el('retry').textContent = RETRY_TEXT;
  el('close').addEventListener('click', close);
  el('manage-keys').addEventListener('click', (event) => {
    if (!event.isTrusted || el('manage-keys').hidden) return;
    openKeysPage();
    port.postMessage({ kind: 'close' });
  });
  guard.listenForPointer(el('another-way'), 'another');
  guard.listenForPointer(el('retry'), 'retry');
  guard.listenForKeys(doc, choiceOf);
  doc.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close(event);
    else if (event.key === 'ArrowDown') moveAmongAccounts(event, 1);
    else if (event.key === 'ArrowUp') moveAmongAccounts(event, -1);
  });
  // Back on screen after being hidden: input is held off again, as when the choices first appeared.
  doc.addEventListener('visibilitychange', () => {
    if (doc.visibilityState !== 'visible') return;
    if (accountsShown) guard.arm('accounts');
    if (offered.another) guard.arm('another');
    if (offered.retry) guard.arm('retry');
  });
  return { render };
}
