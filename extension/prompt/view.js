/*
 * view.js — what the security-key window (prompt.html, wired by prompt.js; opened by background/prompt-window.js,
 * one per request that needs the user) shows: which site asks and from which tab, what to do with the key
 * ("touch", "enter your PIN"), the account chooser, and why a request failed when the host says so.
 *
 * No page can reach this document: it is not web-accessible, so no page can frame it, and it is a window of
 * its own. Its buttons still take only trusted input (event.isTrusted), and none that comes within
 * ACTIVATION_DELAY_MS of the chooser appearing: a click or key press meant for the page, landing on a window
 * that just popped up, must not choose an account (Chromium's dialogs ignore input the same way). From the
 * keyboard: the first account has the focus, Up/Down or Tab move it, Enter picks, Escape is Cancel.
 *
 * The extension owns every sentence the user reads; the host sends status codes, data (the PIN attempts left)
 * and, at times, a detail in its own words (why a key cannot be used, why a request failed).
 */

// Chromium's InputEventActivationProtector uses the double-click interval; 500 ms is its usual value.
export const ACTIVATION_DELAY_MS = 500;

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

/** The line under the sentence: the wrong-PIN line for a `pin` with attempts left, otherwise the host's
 *  detail, unless it only repeats the sentence already shown. */
export function detailText(status, detail, attemptsLeft = null) {
  if (status === 'pin' && Number.isInteger(attemptsLeft) && attemptsLeft >= 0) return wrongPINText(attemptsLeft);
  const text = typeof detail === 'string' ? detail.trim() : '';
  return text && text !== statusText(status) ? text : '';
}

/** The chooser's two lines for one account: the display name, then the account name. */
export function accountLabel(account) {
  const name = account && typeof account.name === 'string' ? account.name : '';
  const display = account && typeof account.displayName === 'string' ? account.displayName : '';
  if (display && name && display !== name) return { primary: display, secondary: name };
  return { primary: display || name || 'Unnamed account', secondary: '' };
}

/** Who asks: the rp.id (or the origin's host) as the headline, then the origin, the embedding site, the tab. */
export function siteLines(site) {
  const s = site || {};
  let host = '';
  try { host = new URL(s.origin).host; } catch (_) { host = ''; }
  const headline = s.rpId || host || 'Unknown site';
  let who = `Asked by ${s.origin || 'an unknown origin'}`;
  if (s.topOrigin) who += `, inside ${s.topOrigin}`;
  if (s.tabTitle) who += ` — tab “${s.tabTitle}”`;
  return { headline, who };
}

/** Whether a click or key on a button counts: a real user's (trusted) and not too soon after it appeared. */
export function acceptsActivation(event, armedAt, now) {
  return !!event && event.isTrusted === true && Number.isFinite(armedAt) && now >= armedAt;
}

/** `grow(pixels)` makes the window that much taller (within the screen), for a list that does not fit. */
export function createPromptView(doc, port, clock, grow) {
  const el = (id) => doc.getElementById(id);
  let accountsShown = null; // the account list the buttons were built for
  let armedAt = Infinity;
  let armTimer = null;

  function arm() {
    armedAt = clock.now() + ACTIVATION_DELAY_MS;
    doc.documentElement.dataset.chooser = 'waiting';
    if (armTimer !== null) clearTimeout(armTimer);
    // Only a marker for tests and styles; acceptsActivation() compares times itself.
    armTimer = setTimeout(() => { armTimer = null; if (accountsShown) doc.documentElement.dataset.chooser = 'armed'; }, ACTIVATION_DELAY_MS);
  }

  function renderAccounts(accounts) {
    const list = el('accounts');
    if (accounts === accountsShown || JSON.stringify(accounts) === JSON.stringify(accountsShown)) return;
    accountsShown = accounts;
    list.replaceChildren();
    list.hidden = !accounts;
    if (!accounts) {
      delete doc.documentElement.dataset.chooser;
      return;
    }
    accounts.forEach((account, index) => {
      const label = accountLabel(account);
      const button = doc.createElement('button');
      button.type = 'button';
      button.textContent = label.primary; // textContent only: names come from the key, never parsed as HTML
      if (label.secondary) {
        const small = doc.createElement('span');
        small.className = 'secondary';
        small.textContent = label.secondary;
        button.appendChild(small);
      }
      button.addEventListener('click', (event) => {
        if (acceptsActivation(event, armedAt, clock.now())) port.postMessage({ kind: 'select', index });
      });
      const item = doc.createElement('li');
      item.appendChild(button);
      list.appendChild(item);
    });
    arm();
    list.querySelector('button').focus();
    const hidden = list.scrollHeight - list.clientHeight;
    if (hidden > 0) grow(hidden).catch(() => { /* the list still scrolls */ });
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
    el('close').textContent = view.final ? 'Close' : 'Cancel';
    doc.title = `Security key — ${lines.headline}`;
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

  el('close').addEventListener('click', close);
  doc.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close(event);
    else if (event.key === 'ArrowDown') moveAmongAccounts(event, 1);
    else if (event.key === 'ArrowUp') moveAmongAccounts(event, -1);
  });
  // Back on screen after being hidden: input is held off again, as when the chooser first appeared.
  doc.addEventListener('visibilitychange', () => { if (doc.visibilityState === 'visible' && accountsShown) arm(); });
  return { render };
}
