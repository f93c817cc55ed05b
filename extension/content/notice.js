/*
 * notice.js — ISOLATED world, before relay.js. Tells the user what to do while a request runs ("touch your
 * key", "enter your PIN in the dialog" …) and lets them choose an account when several match a get.
 *
 * Everything lives in a CLOSED shadow root on one host element: the page cannot reach into it, page CSS
 * does not apply inside, and our CSS does not leak out (`:host { all: initial }` plus inline-only styles).
 * It shows only what the host told us and never any secret.
 */
(function (root) {
  'use strict';

  const TEXT = {
    'insert-key': 'Insert your security key.',
    'select-key': 'Touch the security key you want to use.',
    touch: 'Touch your security key.',
    pin: 'Enter your PIN in the dialog.',
    uv: 'Verify yourself on your security key (fingerprint or built-in PIN).',
    processing: 'Working with your security key…',
    'select-account': 'Choose an account to sign in with.',
  };

  /** The sentence for a status, or null for one we do not know (shown as "processing"). */
  function statusText(status) {
    return Object.prototype.hasOwnProperty.call(TEXT, status) ? TEXT[status] : null;
  }

  /** The chooser's two lines for one account: the display name, then the account name. */
  function accountLabel(account) {
    const name = account && typeof account.name === 'string' ? account.name : '';
    const display = account && typeof account.displayName === 'string' ? account.displayName : '';
    if (display && name && display !== name) return { primary: display, secondary: name };
    return { primary: display || name || 'Unnamed account', secondary: '' };
  }

  const STYLE = `
    :host { all: initial; }
    .box { position: fixed; top: 16px; right: 16px; z-index: 2147483647; max-width: 360px; box-sizing: border-box;
      padding: 14px 16px; border-radius: 10px; background: #fff; color: #202124; border: 1px solid #dadce0;
      box-shadow: 0 4px 16px rgba(0,0,0,.25); font: 14px/1.4 system-ui, sans-serif; text-align: left; }
    .title { font-weight: 600; margin: 0 0 6px; font-size: 13px; color: #5f6368; }
    .text { margin: 0; }
    .detail { margin: 6px 0 0; color: #5f6368; font-size: 12px; }
    .error .text { color: #c5221f; }
    ul { list-style: none; margin: 10px 0 0; padding: 0; }
    li button { display: block; width: 100%; text-align: left; margin: 0 0 6px; padding: 8px 10px; border-radius: 6px;
      border: 1px solid #dadce0; background: #f8f9fa; color: #202124; font: inherit; cursor: pointer; }
    li button:hover, li button:focus { background: #e8f0fe; outline: none; border-color: #1a73e8; }
    .secondary { display: block; color: #5f6368; font-size: 12px; }
    .actions { margin-top: 4px; text-align: right; }
    .actions button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid #dadce0; background: #fff; cursor: pointer; }
  `;

  const ERROR_VISIBLE_MS = 6000;

  function createNotice(doc) {
    let host = null;
    let shadow = null;
    let current = null;   // rid the notice belongs to
    let hideTimer = null;
    let chooserResolve = null;

    function ensure() {
      if (host && host.isConnected) return shadow;
      host = doc.createElement('webauthn-bridge-notice');
      shadow = host.attachShadow({ mode: 'closed' });
      const style = doc.createElement('style');
      style.textContent = STYLE;
      shadow.appendChild(style);
      // documentElement exists once parsing started; requests come from page scripts, so it does by now.
      (doc.body || doc.documentElement).appendChild(host);
      return shadow;
    }

    function box(className) {
      const root = ensure();
      for (const old of root.querySelectorAll('.box')) old.remove();
      const el = doc.createElement('div');
      el.className = className ? `box ${className}` : 'box';
      el.setAttribute('role', 'status');
      const title = doc.createElement('p');
      title.className = 'title';
      title.textContent = `Security key — ${doc.location.host || 'this page'}`;
      el.appendChild(title);
      root.appendChild(el);
      return el;
    }

    function paragraph(parent, className, text) {
      const p = doc.createElement('p');
      p.className = className;
      p.textContent = text; // textContent only: host/page strings are never parsed as HTML
      parent.appendChild(p);
      return p;
    }

    function clearTimer() {
      if (hideTimer !== null) { clearTimeout(hideTimer); hideTimer = null; }
    }

    function remove() {
      clearTimer();
      if (chooserResolve) { const r = chooserResolve; chooserResolve = null; r(null); }
      if (host) host.remove();
      host = null;
      shadow = null;
      current = null;
    }

    return {
      status(rid, status, detail) {
        clearTimer();
        current = rid;
        const el = box('');
        paragraph(el, 'text', statusText(status) || TEXT.processing);
        if (typeof detail === 'string' && detail) paragraph(el, 'detail', detail);
      },

      /** Resolves with the chosen index, or null when the user cancels or the request settles. */
      chooseAccount(rid, accounts) {
        clearTimer();
        if (chooserResolve) { const r = chooserResolve; chooserResolve = null; r(null); }
        current = rid;
        const el = box('');
        el.setAttribute('role', 'dialog');
        paragraph(el, 'text', TEXT['select-account']);
        const list = doc.createElement('ul');
        el.appendChild(list);
        return new Promise((resolve) => {
          chooserResolve = resolve;
          const choose = (index) => {
            if (chooserResolve !== resolve) return;
            chooserResolve = null;
            const box = shadow && shadow.querySelector('.box');
            if (box) box.remove();
            resolve(index);
          };
          accounts.forEach((account, index) => {
            const label = accountLabel(account);
            const item = doc.createElement('li');
            const button = doc.createElement('button');
            button.type = 'button';
            button.textContent = label.primary;
            if (label.secondary) {
              const small = doc.createElement('span');
              small.className = 'secondary';
              small.textContent = label.secondary;
              button.appendChild(small);
            }
            button.addEventListener('click', () => choose(index));
            item.appendChild(button);
            list.appendChild(item);
          });
          const actions = doc.createElement('div');
          actions.className = 'actions';
          const cancel = doc.createElement('button');
          cancel.type = 'button';
          cancel.textContent = 'Cancel';
          cancel.addEventListener('click', () => choose(null));
          actions.appendChild(cancel);
          el.appendChild(actions);
          const first = list.querySelector('button');
          if (first) first.focus();
        });
      },

      /** The request is over. Errors stay visible a few seconds (page-initiated aborts do not). */
      settle(rid, error) {
        if (current !== null && current !== rid) return;
        if (!error || error.name === 'AbortError') { remove(); return; }
        const el = box('error');
        paragraph(el, 'text', error.message || error.name);
        current = rid;
        clearTimer();
        hideTimer = setTimeout(remove, ERROR_VISIBLE_MS);
      },
    };
  }

  const api = { statusText, accountLabel, createNotice };
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root.webauthnBridgeNotice = api; // the extension's isolated world only; pages cannot see it
})(globalThis);
