/*
 * activation-guard.js — which presses of a button count, for the extension's pages that let the user commit
 * something with one press: the security-key window's choices (prompt/view.js) and the Security keys page's
 * dialogs that change a key (keys/dialogs.js).
 *
 * A press counts only if it and its release are trusted (no script's click()), on the same control by the same means
 * (the pointer, or one key: Enter or Space on the focused button, decided on the key's release), neither repeated by
 * the keyboard, and both at least ACTIVATION_DELAY_MS after the control appeared: a click meant for what was under the
 * pointer a moment before (the second click of a double-click), or a key held down since before, never activates it.
 * Chromium's dialogs drop such input the same way (InputEventActivationProtector). It does not decide what a control
 * does, nor which controls a page guards.
 */

// Chromium's InputEventActivationProtector uses the double-click interval; 500 ms is its usual value.
export const ACTIVATION_DELAY_MS = 500;

// Keys that activate a focused button.
export const ACTIVATING_KEYS = new Set(['Enter', ' ']);

/** Whether a press (pointer or key down) or its release counts: a real user's (trusted), not repeated by the
 *  keyboard, and not before `armedAt`. */
export function acceptsActivation(event, armedAt, now) {
  return !!event && event.isTrusted === true && event.repeat !== true && Number.isFinite(armedAt) && now >= armedAt;
}

/**
 * The guard of a page's controls, each under a guard name: arm(name) when its controls appear (again), disarm(name)
 * when they go. `clock.now()` in ms (performance.now() in a page). `mark(name, state)` shows 'waiting' then 'armed'
 * (ACTIVATION_DELAY_MS later), or null once disarmed: a marker for tests and styles only, acceptsActivation()
 * compares times itself. `onActivate(choice)` runs for a press and its release that count; a choice is under the
 * guard `guardOf(choice)` (itself by default: the chooser's accounts share one).
 */
export function createActivationGuard(clock, { mark = () => {}, onActivate, guardOf = (choice) => choice }) {
  const armedAt = new Map();
  const timers = new Map();
  let pressed = null;   // the press that may activate when released: {choice, by: 'pointer' | the key}

  function arm(name) {
    armedAt.set(name, clock.now() + ACTIVATION_DELAY_MS);
    pressed = null;
    clearTimeout(timers.get(name));
    mark(name, 'waiting');
    timers.set(name, setTimeout(() => {
      timers.delete(name);
      mark(name, 'armed');
    }, ACTIVATION_DELAY_MS));
  }

  function disarm(name) {
    armedAt.delete(name);
    clearTimeout(timers.get(name));
    timers.delete(name);
    mark(name, null);
  }

  const accepts = (event, choice) => acceptsActivation(event, armedAt.get(guardOf(choice)) ?? Infinity, clock.now());

  function press(event, choice, by) {
    if (event.repeat === true) return; // the keyboard repeating a key held down: neither a press nor a cancel
    pressed = accepts(event, choice) ? { choice, by } : null;
  }

  function release(event, choice, by) {
    const counts = pressed !== null && pressed.choice === choice && pressed.by === by && accepts(event, choice);
    pressed = null;
    if (counts) onActivate(choice);
  }

  /** `button` is `choice` for the pointer: its press, then its click. */
  function listenForPointer(button, choice) {
    button.addEventListener('pointerdown', (event) => press(event, choice, 'pointer'));
    button.addEventListener('click', (event) => {
      // A click the keyboard made (detail 0) is handled by keyup below, where its press is known.
      if (event.detail !== 0) release(event, choice, 'pointer');
    });
  }

  /** Enter and Space on whatever `target` holds: `choiceOf(event)` says which guarded choice has the focus (null:
   *  none, the key is left alone). No click comes of the key itself (Enter clicks on its press, Space on its release,
   *  repeated keys again): the key's release decides. */
  function listenForKeys(target, choiceOf) {
    target.addEventListener('keydown', (event) => {
      if (!ACTIVATING_KEYS.has(event.key) || choiceOf(event) === null) return;
      event.preventDefault();
      press(event, choiceOf(event), event.key);
    });
    target.addEventListener('keyup', (event) => {
      if (!ACTIVATING_KEYS.has(event.key) || choiceOf(event) === null) return;
      event.preventDefault();
      release(event, choiceOf(event), event.key);
    });
  }

  return { arm, disarm, listenForPointer, listenForKeys };
}
