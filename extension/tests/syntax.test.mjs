// Every script of the extension parses as the classic script a browser loads it as (node --test parses the .mjs
// tests itself) and keeps the few rules a browser would not report; every script the manifest, the background's
// importScripts and the extension pages name exists — a broken name there leaves a browser without the bridge,
// and no test of the logic would notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function filesUnder(dir, endings) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [path] : [];
  });
}

const scripts = filesUnder(root, ['.js', '.mjs']);

test('every script parses as a classic script', () => {
  for (const file of scripts.filter((path) => path.endsWith('.js'))) {
    assert.doesNotThrow(() => new Script(readFileSync(file, 'utf8'), { filename: file }), relative(root, file));
  }
});

test('no tabs or trailing blanks; every classic script is strict', () => {
  for (const file of scripts) {
    const text = readFileSync(file, 'utf8');
    const name = relative(root, file);
    assert.doesNotMatch(text, /\t/, `${name}: a tab`);
    assert.doesNotMatch(text, / +$/m, `${name}: trailing blanks`);
    if (file.endsWith('.js')) assert.match(text, /^\s*'use strict';$/m, `${name}: no 'use strict'`);
  }
});

test('every script the manifest names exists; the worker imports what Firefox lists, in the same order', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
  const named = [
    ...manifest.background.scripts, manifest.background.service_worker,
    ...manifest.content_scripts.flatMap((entry) => entry.js),
  ];
  for (const path of named) assert.ok(existsSync(join(root, path)), `manifest.json names ${path}`);

  const worker = manifest.background.service_worker;
  const source = readFileSync(join(root, worker), 'utf8');
  const call = source.match(/importScripts\(([^)]*)\)/);
  assert.ok(call, `${worker} calls importScripts`);
  const imported = [...call[1].matchAll(/'([^']+)'/g)].map((m) => relative(root, resolve(root, dirname(worker), m[1])));
  assert.deepEqual(imported, manifest.background.scripts.filter((path) => path !== worker));
});

test('every script an extension page loads exists', () => {
  for (const page of filesUnder(root, ['.html'])) {
    for (const [, src] of readFileSync(page, 'utf8').matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) {
      assert.ok(existsSync(resolve(dirname(page), src)), `${relative(root, page)} loads ${src}`);
    }
  }
});
