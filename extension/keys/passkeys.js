/*
 * passkeys.js — the Security keys page's "Sign-in data": the key's passkeys by site and user (the PIN asked once to
 * list them), each renamed in a dialog of the page or deleted after its confirmation and a touch of the key. The list
 * follows each change without asking the key again.
 */
import { deleteQuestion, groupBySite, passkeyLines, rowButton, siteOf, slotsText } from './view.js';

/** `page`: keys.js's {session, busy, say, confirm, openDialog, device(), key()}. */
export function createPasskeysSection(page) {
  const $ = (id) => document.getElementById(id);
  let listing = null;   // the `passkeys` answer, kept in step with deletions and renames

  function canList(key) {
    return Boolean(key) && key.credentialManagement !== 'none' && key.pin === 'set';
  }

  function item(p) {
    const key = page.key();
    const li = document.createElement('li');
    const lines = passkeyLines(p);
    const who = document.createElement('div');
    who.className = 'who';
    const name = document.createElement('strong');
    const details = document.createElement('span');
    name.textContent = lines.who;
    details.textContent = lines.details;
    who.append(name, details);
    const rename = rowButton(document, 'Edit', `Edit the passkey for ${lines.who}`, () => askRename(p));
    if (key.credentialManagement !== 'full') rename.dataset.unavailable = 'preview';   // 2.1-PRE cannot rename
    rename.disabled = 'unavailable' in rename.dataset;
    const remove = rowButton(document, 'Delete', `Delete the passkey for ${lines.who}`, () => askDelete(p), 'danger');
    li.append(who, rename, remove);
    li.dataset.credentialId = p.credentialId;
    return li;
  }

  function render() {
    $('slots').hidden = !listing;
    $('slots').textContent = listing ? slotsText(listing) : '';
    const groups = listing ? groupBySite(listing.passkeys) : [];
    $('sites').replaceChildren(...groups.map((group) => {
      const section = document.createElement('section');
      const heading = document.createElement('h3');
      heading.textContent = group.rpName && group.rpName !== group.rpId ? `${group.rpId} (${group.rpName})` : group.rpId;
      const list = document.createElement('ul');
      list.className = 'passkeys';
      list.append(...group.passkeys.map(item));
      section.append(heading, list);
      return section;
    }));
    if (listing && groups.length === 0) $('sites').append(hint('No passkeys on this security key.'));
  }

  function askDelete(p) {
    page.confirm(deleteQuestion(p), 'Delete', () => page.busy(async () => {
      await page.session.deletePasskey(page.device(), p);
      listing.passkeys = listing.passkeys.filter((q) => q !== p);
      listing.slotsUsed -= 1;
      if (Number.isInteger(listing.slotsLeft)) listing.slotsLeft += 1;
      render();
    }, `Deleted the passkey for ${passkeyLines(p).who} on ${siteOf(p)}.`));
  }

  function askRename(p) {
    $('rename-site').textContent = siteOf(p);
    $('rename-name').value = p.userName || '';
    $('rename-display').value = p.userDisplayName || '';
    page.openDialog('rename', () => {
      const name = $('rename-name').value.trim();
      const displayName = $('rename-display').value.trim();
      page.busy(async () => {
        await page.session.renamePasskey(page.device(), p, name || null, displayName || null);
        p.userName = name || undefined;
        p.userDisplayName = displayName || undefined;
        render();
      }, 'Saved.');
    });
  }

  $('show').addEventListener('click', () => page.busy(async () => {
    listing = await page.session.passkeys(page.device());
    render();
  }));

  return {
    /** A key chosen (or its facts changed): the list of another key, or from before a reset, is gone. */
    show(key) {
      if (!key || key.pin !== 'set') listing = null;
      if (key && !canList(key)) $('show').dataset.unavailable = 'no';
      else delete $('show').dataset.unavailable;
      $('passkeys-note').textContent = !key ? '' : key.credentialManagement === 'none'
        ? 'This security key cannot list its passkeys (it has no credential management).'
        : key.pin !== 'set' ? 'Create a PIN for this security key to see its passkeys.' : '';
      render();
    },
  };
}

function hint(words) {
  const p = document.createElement('p');
  p.className = 'hint';
  p.textContent = words;
  return p;
}
