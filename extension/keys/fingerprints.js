/*
 * fingerprints.js — the Security keys page's "Fingerprints", on a key with a reader: the fingers enrolled (the PIN
 * asked to list them), each renamed in a dialog of the page or deleted after its confirmation, and new ones enrolled
 * (the PIN, then one touch of the sensor per sample, the wait line saying what the reader made of each).
 */
import { rowButton } from './view.js';

/** `page`: keys.js's {session, busy, confirm, openDialog, device(), key()}. */
export function createFingerprintsSection(page) {
  const $ = (id) => document.getElementById(id);
  let fingers = null;

  function render() {
    $('fingers').replaceChildren(...(fingers || []).map((finger) => {
      const li = document.createElement('li');
      const who = document.createElement('div');
      who.className = 'who';
      const name = document.createElement('strong');
      name.textContent = finger.name || 'Unnamed fingerprint';
      who.append(name);
      li.append(who, rowButton(document, 'Rename', `Rename ${name.textContent}`, () => askRename(finger)),
        rowButton(document, 'Delete', `Delete ${name.textContent}`, () => askDelete(finger), 'danger'));
      li.dataset.templateId = finger.templateId;
      return li;
    }));
    if (fingers && fingers.length === 0) {
      const none = document.createElement('li');
      none.className = 'hint';
      none.textContent = 'No fingerprints on this security key.';
      $('fingers').append(none);
    }
  }

  function askRename(finger) {
    $('finger-name').value = finger.name || '';
    page.openDialog('finger-rename', () => {
      const name = $('finger-name').value.trim();
      if (name) {
        page.busy(async () => {
          await page.session.renameFingerprint(page.device(), finger.templateId, name);
          finger.name = name;
          render();
        }, 'Saved.');
      }
    });
  }

  function askDelete(finger) {
    page.confirm(`Delete the fingerprint ${finger.name || ''}? It will no longer unlock this security key.`, 'Delete',
      () => page.busy(async () => {
        await page.session.deleteFingerprint(page.device(), finger.templateId);
        fingers = fingers.filter((f) => f !== finger);
        render();
      }, 'The fingerprint is deleted.'));
  }

  $('finger-add').addEventListener('click', (event) => {
    const name = $('finger-new-name').value.trim();
    if (!event.isTrusted) return;
    page.busy(async () => {
      const templateId = (await page.session.addFingerprint(page.device(), name || null)).added;
      $('finger-new-name').value = '';
      if (fingers) fingers.push({ templateId, name: name || undefined });
      render();
    }, 'The fingerprint is added.');
  });
  $('fingers-show').addEventListener('click', (event) => event.isTrusted && page.busy(async () => {
    fingers = await page.session.fingerprints(page.device());
    render();
  }));

  return {
    show(key) {
      const options = key && key.options ? key.options : {};
      $('fingers-section').hidden = !('bioEnroll' in options || 'userVerificationMgmtPreview' in options);
      if (!key || key.pin !== 'set') fingers = null;
      render();
    },
  };
}
