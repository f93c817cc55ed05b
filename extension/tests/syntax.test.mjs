// How the browsers load the extension's scripts, checked without a browser: the background and the extension's
// pages are ES modules (the manifest names background/main.js alone, each page one <script type="module">, and
// the imports are the load order); the content scripts are classic scripts (page/, content/, and the two common/
// files the relay shares with the background, which parse both ways). Every file the manifest, a page or an
// import names exists, and every script is reached — a broken name leaves a browser without the bridge, and no
// test of the logic would notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { webcrypto } from 'node:crypto';
import { pageRealm, runInPage, runPageScript } from './page-realm.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const rel = (path) => relative(root, path);

function filesUnder(dir, endings) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [path] : [];
  });
}

const pages = filesUnder(root, ['.html']);

/** The <script> elements of an extension page: [{src (absolute), module}]. */
function pageScripts(page) {
  return [...readFileSync(page, 'utf8').matchAll(/<script([^>]*)>/g)].map(([, attributes]) => ({
    src: resolve(dirname(page), (attributes.match(/\ssrc="([^"]+)"/) || [])[1] || ''),
    module: /\stype="module"/.test(attributes),
  }));
}

/** The specifiers a module imports or re-exports from. */
function importsOf(source) {
  const statements = /^(?:import\s+(?:[^;']*?\sfrom\s+)?|export\s+[^;']*?\sfrom\s+)'([^']+)'/gm;
  return [...source.matchAll(statements)].map((m) => m[1]);
}

/** Every file reached from the module roots through static imports (JSON included). */
function moduleGraph(roots) {
  const seen = new Set();
  const todo = [...roots];
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    assert.ok(existsSync(file), `${rel(file)} is imported but does not exist`);
    seen.add(file);
    if (file.endsWith('.js')) todo.push(...importsOf(readFileSync(file, 'utf8')).map((spec) => resolve(dirname(file), spec)));
  }
  return seen;
}

const background = join(root, manifest.background.service_worker);
const moduleRoots = [background, ...pages.flatMap(pageScripts).filter((s) => s.module).map((s) => s.src)];
const modules = moduleGraph(moduleRoots);
const backgroundModules = moduleGraph([background]);
const classic = new Set(manifest.content_scripts.flatMap((entry) => entry.js).map((path) => join(root, path)));
const scripts = filesUnder(root, ['.js']);

test('both browsers get one module background: Chromium the service worker, Firefox the same file as its page', () => {
  assert.equal(manifest.background.type, 'module');
  assert.deepEqual(manifest.background.scripts, [manifest.background.service_worker]);
});

test('every extension page loads its scripts as modules, and each exists', () => {
  for (const page of pages) {
    for (const script of pageScripts(page)) {
      assert.ok(script.module, `${rel(page)} loads ${rel(script.src)} as a classic script`);
      assert.ok(existsSync(script.src), `${rel(page)} loads ${rel(script.src)}, which does not exist`);
    }
  }
});

test('every content script exists, and none is listed in two entries (Chromium would run it in the first only)', () => {
  const listed = manifest.content_scripts.flatMap((entry) => entry.js);
  for (const path of listed) assert.ok(existsSync(join(root, path)), `manifest.json names ${path}`);
  assert.equal(new Set(listed).size, listed.length, `a file in two content-script entries: ${listed}`);
});

test('every script is loaded by something: the module graph or the content scripts', () => {
  for (const file of scripts) assert.ok(modules.has(file) || classic.has(file), `${rel(file)} is loaded by nothing`);
});

test('modules parse as modules, content scripts as classic scripts (the shared common/ files both ways)', () => {
  for (const file of scripts.filter((path) => modules.has(path))) {
    const check = spawnSync(process.execPath, ['--check', '--input-type=module'], { input: readFileSync(file), encoding: 'utf8' });
    assert.equal(check.status, 0, `${rel(file)} is not a valid module:\n${check.stderr}`);
  }
  for (const file of scripts.filter((path) => classic.has(path))) {
    assert.doesNotThrow(() => new Script(readFileSync(file, 'utf8'), { filename: file }), rel(file));
  }
});

test('the background imports no JSON module: Chromium\'s service worker does not start again with one after a restart', () => {
  for (const file of backgroundModules) assert.ok(file.endsWith('.js'), `the background imports ${rel(file)}`);
});

test('a data module (export default …) holds strict JSON, which the host\'s and the Python tests read', () => {
  const data = [...modules].filter((file) => /^export default /m.test(readFileSync(file, 'utf8')));
  assert.ok(data.length >= 2, 'protocol-constants.js and chromium-texts.js');
  for (const file of data) {
    const literal = readFileSync(file, 'utf8').split(/^export default /m)[1].trimEnd().replace(/;$/, '');
    assert.doesNotThrow(() => JSON.parse(literal), rel(file));
  }
});

test('the background neither awaits at its top level nor calls import(): Chromium refuses both in a service worker', () => {
  for (const file of [...backgroundModules].filter((path) => path.endsWith('.js'))) {
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\bimport\s*\(/, `${rel(file)}: import()`);
    // This code's style indents every statement inside a function: an unindented await is a top-level one.
    assert.doesNotMatch(code, /^\S.*\bawait\b/m, `${rel(file)}: a top-level await`);
  }
});

test('no tabs or trailing blanks; every classic script is strict', () => {
  for (const file of filesUnder(root, ['.js', '.mjs', '.json'])) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /\t/, `${rel(file)}: a tab`);
    assert.doesNotMatch(text, / +$/m, `${rel(file)}: trailing blanks`);
  }
  for (const file of classic) assert.match(readFileSync(file, 'utf8'), /^\s*'use strict';$/m, `${rel(file)}: no 'use strict'`);
});

test('the MAIN-world entry, run in the manifest\'s order in one page, installs the bridge and deletes its hand-overs', () => {
  const win = pageRealm();
  runPageScript(win, `
    class CredentialsContainer { create() { return 'native-create'; } get() { return 'native-get'; } }
    globalThis.CredentialsContainer = CredentialsContainer;
    globalThis.navigator = { credentials: new CredentialsContainer() };
    globalThis.origin = 'https://example.com';
    globalThis.posted = [];
    globalThis.postMessage = (message) => { posted.push(message); };
    globalThis.addEventListener = () => {};
  `);
  win.crypto = webcrypto;
  const symbolsBefore = Object.getOwnPropertySymbols(win).length;
  const mainWorld = manifest.content_scripts.filter((entry) => entry.world === 'MAIN');
  assert.equal(mainWorld.length, 1, 'one MAIN-world entry: its files share one run, in order');
  runInPage(win, ...mainWorld[0].js);
  const credentials = win.navigator.credentials;
  assert.equal(credentials.get.__webauthnBridge, true, 'create/get patched: every part reached interceptor.js');
  assert.equal(Object.getOwnPropertySymbols(win).length, symbolsBefore, 'no hand-over symbol left on the page global');
  credentials.get({ publicKey: { challenge: new Uint8Array([1]) } });
  assert.equal(win.posted.length, 1);
  assert.equal(win.posted[0].kind, 'request', 'a modal get goes to the relay');
  assert.equal(credentials.get({ password: true }), 'native-get', 'what the bridge does not serve goes below it');
});
