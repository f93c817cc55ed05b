// common/chromium-texts.js, the one table of Chromium's texts the bridge gives pages: the background imports
// it (common/chromium-errors.js); these tests hold to it the copies of the classic scripts that cannot import it:
// the relay's frame rules (common/frame-rules.js) and the page world's ceremony, interceptor and codec (page/).
// ChromiumErrorTextsTests does the same for the host's copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import texts from '../common/chromium-texts.js';
import { NOT_ALLOWED, PENDING, ABORTED, NO_FOCUS } from '../common/chromium-errors.js';
import { REFUSALS } from '../common/relay-shared.js';

test('the background\'s errors are the table\'s texts under Chromium\'s names', () => {
  assert.deepEqual(NOT_ALLOWED, { name: 'NotAllowedError', message: texts.notAllowed });
  assert.deepEqual(PENDING, { name: 'NotAllowedError', message: texts.pending });
  assert.deepEqual(ABORTED, { name: 'AbortError', message: texts.aborted });
  assert.deepEqual(NO_FOCUS, { name: 'NotAllowedError', message: texts.focus });
});

test('the frame rules\' refusals (a classic script\'s copies) say what the table says', () => {
  assert.equal(REFUSALS.opaque.message, texts.opaque);
  assert.equal(REFUSALS.activation.message, texts.activation);
  for (const type of ['create', 'get']) assert.equal(REFUSALS.policy(type).message, texts.policy.replace('{type}', type));
});

test('the page world\'s own copies (page/ceremony.js: a second request; page/interceptor.js: an abort without a reason) are the table\'s', () => {
  for (const [file, key] of [['ceremony.js', 'pending'], ['interceptor.js', 'aborted']]) {
    const source = readFileSync(new URL(`../page/${file}`, import.meta.url), 'utf8');
    assert.ok(source.includes(`'${texts[key]}'`), `${file} spells ${key}: ${texts[key]}`);
  }
});

test('the page world\'s list of Chromium\'s texts for a document refused (page/codec.js, worded for Firefox) is the table\'s', () => {
  const source = readFileSync(new URL('../page/codec.js', import.meta.url), 'utf8');
  const spelled = [texts.focus, texts.activation, texts.opaque, texts.policy.replace('{type}', 'create'), texts.policy.replace('{type}', 'get')];
  for (const text of spelled) assert.ok(source.includes(text), `codec.js spells: ${text}`);
});
