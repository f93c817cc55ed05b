/*
 * prompt-window.js — the security-key window: where the user reads "touch your key", "enter your PIN" and
 * chooses an account, out of every page's reach.
 *
 * The window is an extension page (prompt/prompt.html) in a popup window of its own. A page can neither script,
 * read, frame nor overlay it (the page is not web-accessible, and it is another window), and its buttons take
 * only trusted input. Status frames and the account choice travel host ⇄ background ⇄ window; the requesting
 * frame never sees them, it only gets the final result or error.
 *
 * A page must not be able to pop windows up at will: at most one window per tab at a time (a window still showing
 * an error is reused), and a tab's new ones open, and take the focus, at the pace window-rate.js allows.
 *
 * Lifecycle, per host request id:
 *   first status the user must see (any but "processing") → window opened, named for the trusted origin and
 *   rp.id; later statuses update it; the request settling closes it, unless it failed with a `detail` for
 *   the user, which stays shown until the user closes the window. The user closing the window while the
 *   request runs is Cancel (the bridge answers NotAllowedError, as Chromium does when its dialog is cancelled).
 *   A failure the user may retry (background/try-again.js) stays shown with "Try again" while the page waits; Try
 *   again follows the same request to its next host id (rekey), closing the window gives the page the failure.
 *
 * Pure of browser globals (node tests it); the browser calls are in `deps`, given by main.js.
 */
import { PROMPT_PAGE_PATH } from '../common/extension-names.js';
import { isPlainObject } from '../common/protocol.js';
import { createWindowRate } from './window-rate.js';

export const WIDTH = 420;
// A first guess at the height the dialog needs; its page fits the window to its content (prompt/window-size.js).
export const HEIGHT = 260;
// Only updates a window already open (the host sends it right before its answer); never opens one.
const UPDATE_ONLY = new Set(['processing']);
// Failures of the key or of the user's part, which the user must be told. The others (TypeError,
// SecurityError, NotSupportedError …) are about the page's own request: the page is told, and a window
// would let any page pop one up at will. With a window already open, any reason is shown.
const USER_FAILURES = new Set(['NotAllowedError', 'InvalidStateError']);
// What the user must act on in the window itself: it comes to the front again if it went behind the tab (only a
// window that was given the focus for a user's press).
const NEEDS_THE_WINDOW = new Set(['select-account', 'error']);
// While the user is asked to plug in a key, touch it, or verify on it (PIN, fingerprint), the window offers another
// way: the request goes below the bridge (the browser's own WebAuthn, or another extension's wrapper), with its
// options, signal and time left. Not once the key has answered (the account chooser, "processing").
const ANOTHER_WAY = new Set(['insert-key', 'key-unusable', 'select-key', 'touch', 'pin', 'set-pin', 'uv']);

/** Where to put the window: centred over the requesting tab's window, near its top; null lets the browser
 *  choose (the tab's window unknown). */
export function placement(parent) {
  if (!parent || ![parent.left, parent.top, parent.width].every(Number.isFinite)) return null;
  return { left: Math.max(0, Math.round(parent.left + (parent.width - WIDTH) / 2)), top: Math.max(0, parent.top + 80) };
}

/** Account entries as the window may show them: name and display name only (never the id or handle). */
export function accountsForView(accounts) {
  if (!Array.isArray(accounts)) return null;
  return accounts.map((a) => ({
    name: isPlainObject(a) && typeof a.name === 'string' ? a.name : '',
    displayName: isPlainObject(a) && typeof a.displayName === 'string' ? a.displayName : '',
  }));
}

/**
 * deps:
 *   createWindow(options)      → Promise<{id}>   (windows.create)
 *   removeWindow(windowId)     → Promise          (windows.remove)
 *   focusWindow(windowId)      → Promise          (windows.update(id, {focused: true}))
 *   windowOf(tabId)            → Promise<{window: {left, top, width} | null}>
 *   pageUrl(path)              → the extension URL of `path` (runtime.getURL)
 *   randomToken()              → an unguessable string naming one window
 *   select(hostId, index)      → the bridge sends the user's choice to the host
 *   userCancelled(hostId)      → the bridge cancels the request and answers NotAllowedError
 *   anotherWay(hostId, {always}) → the bridge cancels the request at the host and hands it below the bridge
 *                                (always: the site goes on the per-site list)
 *   tryAgain(hostId)           → the bridge sends the failed request to the host again (try-again.js)
 *   now(), setTimeout(fn, ms), clearTimeout(handle)   (default: the global ones)
 *   log(level, text)
 */
export function createPrompts(deps) {
  const log = deps.log || (() => {});
  const byHostId = new Map();   // host id → prompt, while its request runs
  const byToken = new Map();    // token (in the window's URL) → prompt, while its window is open
  const byWindow = new Map();   // window id → prompt
  // Window id → tab id of the last windows of ours asked to close: while it goes it may still hold the focus, which
  // is its tab's (a request right after the last one ended must not be refused for focus), and once gone it may
  // have been the last to hold it (focus.js).
  const closed = new Map();
  const CLOSED_KEPT = 8;
  const opening = new Set();    // open() calls not yet answered with their window's id (the focus rule waits on them)
  const now = deps.now || (() => Date.now());
  const rate = createWindowRate(now);
  const later = deps.setTimeout || ((fn, ms) => setTimeout(fn, ms));
  const cancelLater = deps.clearTimeout || ((handle) => clearTimeout(handle));

  function view(prompt) {
    return {
      kind: 'view',
      site: prompt.site,
      status: prompt.status,
      detail: prompt.detail,
      attemptsLeft: prompt.attemptsLeft,
      accounts: prompt.status === 'select-account' ? prompt.accounts : null,
      anotherWay: offersAnotherWay(prompt),
      retry: prompt.retry === true,
      final: prompt.final,
    };
  }

  function offersAnotherWay(prompt) {
    return prompt.canHandOff && !prompt.final && ANOTHER_WAY.has(prompt.status);
  }

  function push(prompt) {
    if (!prompt.port) return;
    try {
      prompt.port.postMessage(view(prompt));
    } catch (_) {
      prompt.port = null;
    }
  }

  /** The new window of `prompt` opens, and takes the focus or not, as the tab's rate allows (window-rate.js). */
  function schedule(prompt, userInputAt) {
    const { focused, waitMs } = rate.decide(prompt.tabId, userInputAt);
    prompt.focused = focused;
    const go = () => {
      prompt.timer = null;
      if (prompt.closed) return;
      rate.opened(prompt.tabId);
      const opened = open(prompt);
      opening.add(opened);
      opened.finally(() => opening.delete(opened));
    };
    if (waitMs <= 0) go();
    else prompt.timer = later(go, waitMs);
  }

  async function open(prompt) {
    const url = `${deps.pageUrl(PROMPT_PAGE_PATH)}?w=${encodeURIComponent(prompt.token)}`;
    let where = null;
    try {
      where = placement((await deps.windowOf(prompt.tabId)).window);
    } catch (_) { /* the tab is gone or unreadable: the window still opens, where the browser puts it */ }
    if (prompt.closed) return;
    let created;
    try {
      created = await deps.createWindow({ url, type: 'popup', focused: prompt.focused, width: WIDTH, height: HEIGHT, ...(where || {}) });
    } catch (error) {
      // Without the window the user can neither see what to do nor choose: the request ends, as a cancel.
      log('error', `cannot open the security-key window: ${error && error.message}`);
      userClosed(prompt);
      return;
    }
    prompt.windowId = created.id;
    const [tab] = Array.isArray(created.tabs) ? created.tabs : [];
    prompt.tabOfWindow = tab && Number.isInteger(tab.id) ? tab.id : null;
    byWindow.set(created.id, prompt);
    if (prompt.closed) close(prompt);
    // The page may have connected before windows.create answered.
    for (const port of prompt.waiting.splice(0)) admit(prompt, port);
  }

  function close(prompt) {
    prompt.closed = true;
    if (prompt.timer) cancelLater(prompt.timer);
    prompt.timer = null;
    for (const port of prompt.waiting.splice(0)) port.disconnect();
    byToken.delete(prompt.token);
    if (byHostId.get(prompt.hostId) === prompt) byHostId.delete(prompt.hostId);
    if (prompt.windowId === null) return; // still opening: open() closes it once it exists
    byWindow.delete(prompt.windowId);
    closed.set(prompt.windowId, prompt.tabId);
    if (closed.size > CLOSED_KEPT) closed.delete(closed.keys().next().value);
    deps.removeWindow(prompt.windowId).catch(() => { /* closed by the user already */ });
  }

  /** A window of the tab left open to show an error, taken over by the tab's new request: no new window. */
  function reuseFinalWindowOf(tabId, hostId, request) {
    for (const prompt of byToken.values()) {
      if (!prompt.final || prompt.tabId !== tabId || prompt.closed) continue;
      prompt.hostId = hostId;
      prompt.final = false;
      prompt.site = siteOf(request);
      prompt.canHandOff = request.canHandOff === true;
      byHostId.set(hostId, prompt);
      return prompt;
    }
    return null;
  }

  function siteOf(request) {
    return {
      type: request.type === 'create' ? 'create' : 'get', origin: request.origin, topOrigin: request.topOrigin || '',
      rpId: request.rpId || '',
    };
  }

  /**
   * A status frame for a running request. `request`: {type, tabId, origin, topOrigin, rpId, userInputAt, canHandOff}
   * from the bridge's own records — never from the page. `frame`: {status, detail, accounts, attemptsLeft} from the
   * host.
   */
  function status(hostId, request, frame) {
    let prompt = byHostId.get(hostId);
    if (!prompt) {
      if (UPDATE_ONLY.has(frame.status)) return;
      prompt = reuseFinalWindowOf(request.tabId, hostId, request);
    }
    if (!prompt) {
      prompt = {
        hostId, token: deps.randomToken(), tabId: request.tabId, windowId: null, tabOfWindow: null, port: null, waiting: [],
        closed: false, final: false,
        site: siteOf(request), status: '', detail: '', accounts: null, attemptsLeft: null, focused: false, timer: null,
        canHandOff: request.canHandOff === true,
      };
      byHostId.set(hostId, prompt);
      byToken.set(prompt.token, prompt);
      schedule(prompt, request.userInputAt);
    } else if (prompt.focused && prompt.windowId !== null && NEEDS_THE_WINDOW.has(frame.status) && prompt.status !== frame.status) {
      deps.focusWindow(prompt.windowId).catch(() => { /* closed meanwhile: windowRemoved handles it */ });
    }
    prompt.status = String(frame.status || '');
    prompt.retry = false;
    prompt.detail = typeof frame.detail === 'string' ? frame.detail : '';
    prompt.attemptsLeft = Number.isInteger(frame.attemptsLeft) ? frame.attemptsLeft : null;
    prompt.accounts = accountsForView(frame.accounts);
    push(prompt);
  }

  /**
   * The request is over. `error` is null for a result or a cancel, or {name, detail} for an error: with a
   * detail for the user the window stays (opened if need be, for USER_FAILURES) to say why, until the user
   * closes it. The page has its answer already; the detail never goes to it.
   */
  function ended(hostId, request, error) {
    const shown = byHostId.get(hostId);
    const detail = error && error.name !== 'AbortError' && typeof error.detail === 'string' ? error.detail : '';
    if (!detail || (!shown && !USER_FAILURES.has(error.name))) {
      if (shown) close(shown);
      return;
    }
    status(hostId, request, { status: 'error', detail });
    const prompt = byHostId.get(hostId);
    byHostId.delete(hostId);
    prompt.final = true;
    push(prompt);
  }

  /**
   * The host failed request `hostId` with an error the user may try again: its window (opened if need be, under the
   * tab's rules) shows it with Try again — when the window is the one the user's press brought to the front, as
   * Chromium's dialog is in front of its tab. Whether it does: a window opened behind without the user's action
   * only says why, and the page is answered at once (it would wait for a choice the user may never see).
   */
  function offerRetry(hostId, request, error) {
    const shown = byHostId.get(hostId);
    if (shown && (shown.closed || shown.final)) return false;
    status(hostId, request, { status: 'error', detail: error.detail });
    const prompt = byHostId.get(hostId);
    if (!prompt.focused) return false;
    prompt.retry = true;
    push(prompt);
    return true;
  }

  /** The retried request went back to wait for its tab and the host (try-again.js): its window stays, showing
   *  "processing" as after Try again, until the request goes to the host again (rekey) or ends. */
  function waiting(hostId) {
    const prompt = byHostId.get(hostId);
    if (!prompt || prompt.closed || prompt.final) return;
    Object.assign(prompt, { status: 'processing', detail: '', retry: false, accounts: null, attemptsLeft: null });
    push(prompt);
  }

  /** The retried request went to the host under a new id: its window follows it. */
  function rekey(oldId, newId) {
    const prompt = byHostId.get(oldId);
    if (!prompt || oldId === newId) return;
    byHostId.delete(oldId);
    prompt.hostId = newId;
    byHostId.set(newId, prompt);
  }

  /**
   * The prompt page connected: it must be ours, at our URL, with a token of an open window, and in that window. The
   * token alone is not enough: another extension with the "tabs" permission reads the window's URL, and both browsers
   * let it open our page in a window of its own, which it may size and place to catch the user's next click.
   */
  function attach(port, ownUrlPrefix) {
    const url = port.sender && typeof port.sender.url === 'string' ? port.sender.url : '';
    let token = null;
    if (url.startsWith(ownUrlPrefix)) {
      try { token = new URL(url).searchParams.get('w'); } catch (_) { token = null; }
    }
    const prompt = token ? byToken.get(token) : undefined;
    if (!prompt) {
      port.disconnect();
      return;
    }
    if (prompt.windowId === null) prompt.waiting.push(port);   // windows.create has not answered yet: open() admits it
    else admit(prompt, port);
  }

  /** A port of the prompt's page, taken only from the tab of the window the background opened. */
  function admit(prompt, port) {
    const tab = port.sender && port.sender.tab;
    const inItsWindow = !!tab && tab.windowId === prompt.windowId
      && (prompt.tabOfWindow === null || tab.id === prompt.tabOfWindow);
    if (!inItsWindow) {
      log('warn', 'refused a security-key window page outside the window opened for it');
      port.disconnect();
      return;
    }
    prompt.port = port;
    port.onMessage.addListener((message) => fromWindow(prompt, message));
    // The window no longer shows our page while it is open: another extension navigated it (tabs.update needs no
    // permission) to a page of its own, which could ask for the PIN where the user expects ours. The window goes, as
    // when the user closes it (a reload of it by the user too).
    port.onDisconnect.addListener(() => {
      if (prompt.port !== port) return;
      prompt.port = null;
      if (!prompt.closed) userClosed(prompt);
    });
    push(prompt);
  }

  function fromWindow(prompt, message) {
    if (!isPlainObject(message) || prompt.closed) return;
    if (message.kind === 'select' && !prompt.final && prompt.status === 'select-account') {
      const index = message.index;
      const count = prompt.accounts ? prompt.accounts.length : 0;
      if (!(Number.isInteger(index) && index >= 0 && index < count)) return;
      // One answer per chooser: until the host sends a new status, the window shows "processing".
      prompt.status = 'processing';
      prompt.accounts = null;
      push(prompt);
      deps.select(prompt.hostId, index);
    } else if (message.kind === 'another-way' && offersAnotherWay(prompt)) {
      // The user's choice, from this window only (a page's port has no such message): the bridge's request ends
      // here, its window with it.
      const hostId = prompt.hostId;
      close(prompt);
      deps.anotherWay(hostId, { always: message.always === true });
    } else if (message.kind === 'try-again' && prompt.retry && !prompt.final) {
      // The user's choice, from this window only: until the retry's first status, the window shows "processing".
      prompt.retry = false;
      prompt.status = 'processing';
      prompt.detail = '';
      push(prompt);
      deps.tryAgain(prompt.hostId);
    } else if (message.kind === 'close') {
      userClosed(prompt);
    }
  }

  function userClosed(prompt) {
    const running = !prompt.final && byHostId.get(prompt.hostId) === prompt;
    close(prompt);
    if (running) deps.userCancelled(prompt.hostId);
  }

  /** windows.onRemoved: the user closed the window (ours closing comes here too, already forgotten). */
  function windowRemoved(windowId) {
    const prompt = byWindow.get(windowId);
    if (!prompt) return;
    prompt.windowId = null;
    byWindow.delete(windowId);
    userClosed(prompt);
  }

  /** For the focus rule: settles once every window of ours being opened has its id (byWindow knows it). */
  function windowsOpened() {
    return Promise.allSettled([...opening]).then(() => undefined);
  }

  /** For the focus rule: a prompt window taking focus does not take it from the browser window focused before. */
  function isPromptWindow(windowId) {
    return byWindow.has(windowId) || closed.has(windowId);
  }

  /** For the focus rule: the window is one of ours opened for `tabId`, running or showing why its request failed.
   *  Like Chromium's dialog, which belongs to its tab, it keeps the focus with that tab: the page may ask again at
   *  once, without a click in the tab first. */
  function isPromptWindowOf(windowId, tabId) {
    const prompt = byWindow.get(windowId);
    return prompt !== undefined ? prompt.tabId === tabId : closed.get(windowId) === tabId;
  }

  /** For the focus rule: the window was one of ours opened for `tabId`, and is closed. */
  function wasPromptWindowOf(windowId, tabId) {
    return !byWindow.has(windowId) && closed.get(windowId) === tabId;
  }

  return {
    status, ended, offerRetry, waiting, rekey, attach, windowRemoved, isPromptWindow, isPromptWindowOf, wasPromptWindowOf,
    windowsOpened, opening: () => opening.size > 0, openCount: () => byToken.size,
  };
}
