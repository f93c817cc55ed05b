/*
 * window-size.js — the security-key window's height follows its content, as a dialog's does: the background opens
 * it at a first guess (background/prompt-window.js, HEIGHT), since the frame a browser draws around a popup window
 * (title bar, address line) differs by browser and desktop; the page then knows both what its content needs and
 * what the frame takes (the window's outer height less the page's viewport), and asks for the difference.
 */

/** A window never grows past this share of the screen's height: a long account list scrolls inside it. */
const MAX_SCREEN_SHARE = 0.8;

/** The longest wait for the viewport to follow a resize: a window manager may refuse or ignore the request. */
const RESIZE_WAIT_MS = 1000;

/** The height the page's content needs: `main` at its natural height, not stretched to the viewport. */
export function contentHeight(doc) {
  const main = doc.querySelector('main');
  main.style.height = 'auto';
  const needed = Math.ceil(main.getBoundingClientRect().height);
  main.style.height = '';
  return needed;
}

/** Resizes the current window (`windows` API of `ext`) so that its viewport holds the content, within the screen. */
export async function fitToContent(doc, view, ext) {
  const needed = contentHeight(doc);
  const own = await ext.windows.getCurrent();
  const most = Math.round(view.screen.availHeight * MAX_SCREEN_SHARE);
  const height = Math.min(own.height + needed - view.innerHeight, most);
  if (Math.abs(height - own.height) <= 1) return;
  // windows.update may resolve before the page's viewport has the new size (Firefox): until it has, the buttons
  // are not where they will be, and a click aimed at them could land elsewhere.
  const resized = new Promise((resolve) => {
    const timer = setTimeout(resolve, RESIZE_WAIT_MS);
    view.addEventListener('resize', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
  await ext.windows.update(own.id, { height });
  await resized;
}
