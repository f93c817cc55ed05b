// The security-key window fits its height to its content (prompt/window-size.js).
import assert from 'node:assert/strict';
import test from 'node:test';

import { fitToContent } from '../prompt/window-size.js';

/** A page whose `main` needs `needed` px, in a window `outer` px high showing `inner` px of it. */
function page(needed, outer, inner, availHeight = 1000) {
  const main = { style: { height: '' } };
  main.getBoundingClientRect = () => ({ height: main.style.height === 'auto' ? needed : inner });
  const updates = [];
  const listeners = [];
  const windows = {
    getCurrent: async () => ({ id: 7, height: outer }),
    // As Firefox does: the update resolves first, the viewport's resize event follows.
    update: async (id, what) => {
      updates.push([id, what]);
      setImmediate(() => listeners.splice(0).forEach((listener) => listener()));
    },
  };
  const view = {
    innerHeight: inner,
    screen: { availHeight },
    addEventListener: (type, listener) => { if (type === 'resize') listeners.push(listener); },
  };
  return { doc: { querySelector: () => main }, view, ext: { windows }, updates, main };
}

test('the window grows or shrinks by its content less its viewport; the frame stays', async () => {
  const taller = page(389.4, 340, 300);
  await fitToContent(taller.doc, taller.view, taller.ext);
  assert.deepEqual(taller.updates, [[7, { height: 430 }]]);
  assert.equal(taller.main.style.height, '', 'main is stretched to the viewport again');
  const shorter = page(186, 340, 300);
  await fitToContent(shorter.doc, shorter.view, shorter.ext);
  assert.deepEqual(shorter.updates, [[7, { height: 226 }]]);
});

test('a window that fits already is left alone; none grows past 80 % of the screen', async () => {
  const fits = page(300, 340, 300);
  await fitToContent(fits.doc, fits.view, fits.ext);
  assert.deepEqual(fits.updates, []);
  const long = page(2000, 340, 300, 600);
  await fitToContent(long.doc, long.view, long.ext);
  assert.deepEqual(long.updates, [[7, { height: 480 }]]);
});

test('a resize is done when the viewport has followed it, not when the window API answers', async () => {
  const taller = page(389.4, 340, 300);
  let resizedSeen = false;
  taller.view.addEventListener('resize', () => { resizedSeen = true; });
  await fitToContent(taller.doc, taller.view, taller.ext);
  assert.equal(resizedSeen, true, 'fitToContent returned before the resize event');
});
