/*
 * dialogs.js — the Security keys page's modal dialogs that change a key: the confirmation of a deletion or a reset,
 * and the renames of a passkey and of a fingerprint. A dialog's button that acts (Delete, Reset, Save) takes only the
 * presses common/activation-guard.js lets through, from ACTIVATION_DELAY_MS after the dialog opened or the tab came
 * back on screen, as the security-key window's choices do: the second click of a double-click on a list's "Delete",
 * or Enter held down on it, never confirms. Cancel, Escape and closing the dialog change nothing and are not held
 * off; no button of a dialog takes a key the keyboard repeats.
 *
 * Which control has the focus when a dialog opens is keys.html's (autofocus): the confirmation's Cancel, the least
 * destructive choice, so a key pressed out of habit or meant for the list cannot delete; a rename's first field.
 *
 * The acting button's data-guard says "waiting", then "armed" (for tests and styles only).
 */
import { ACTIVATING_KEYS, createActivationGuard } from '../common/activation-guard.js';

/** The dialogs of `doc`, by name: {dialog, commit, cancel}, the ids of a <dialog>, its acting button and its
 *  Cancel. `clock.now()` in ms. */
export function createDialogs(doc, clock, dialogs) {
  const $ = (id) => doc.getElementById(id);
  const names = Object.keys(dialogs);
  const actions = new Map();   // an open dialog's name → what its acting button does
  const isOpen = (name) => $(dialogs[name].dialog).open === true;
  const guard = createActivationGuard(clock, {
    mark: (name, state) => {
      const button = $(dialogs[name].commit);
      if (state) button.dataset.guard = state;
      else delete button.dataset.guard;
    },
    onActivate: (name) => {
      const action = actions.get(name);
      shut(name);
      if (action) action();
    },
  });

  /** Closes `name`: its action is forgotten and its guard disarmed at once, not when the close event comes. */
  function shut(name) {
    actions.delete(name);
    guard.disarm(name);
    if (isOpen(name)) $(dialogs[name].dialog).close();
  }

  for (const name of names) {
    const { dialog, commit, cancel } = dialogs[name];
    guard.listenForPointer($(commit), name);
    $(cancel).addEventListener('click', () => shut(name));
    // Escape closes a modal dialog by itself: forget it then too (unless it was opened again meanwhile).
    $(dialog).addEventListener('close', () => { if (!isOpen(name)) shut(name); });
  }
  const commitOf = (target) => names.find((name) => target && target.id === dialogs[name].commit && isOpen(name));
  guard.listenForKeys(doc, (event) => commitOf(event.target) ?? null);
  const cancels = new Set(names.map((name) => dialogs[name].cancel));
  doc.addEventListener('keydown', (event) => {
    // Enter held down on the list's "Delete" repeats on the Cancel that now has the focus: that is no choice either.
    if (event.repeat === true && ACTIVATING_KEYS.has(event.key) && event.target && cancels.has(event.target.id)) {
      event.preventDefault();
    }
  });
  // Back on screen after being hidden: input is held off again, as when the dialog opened.
  doc.addEventListener('visibilitychange', () => {
    if (doc.visibilityState !== 'visible') return;
    for (const name of names) if (isOpen(name)) guard.arm(name);
  });

  return {
    /** Opens dialog `name` (modal); `action` runs, the dialog closed, on a press of its acting button that counts. */
    open(name, action) {
      actions.set(name, action);
      if (!isOpen(name)) $(dialogs[name].dialog).showModal();
      guard.arm(name);
    },
  };
}
