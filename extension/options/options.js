/*
 * options.js — the per-site switch (storage.local "browserSites": string[]) and a view of the host state.
 * background.js picks up changes through storage.onChanged; nothing else is stored.
 */
'use strict';

const api = globalThis.browser ?? globalThis.chrome;
const SITES_KEY = 'browserSites';
const sites = document.getElementById('sites');
const saved = document.getElementById('saved');

async function load() {
  const stored = await api.storage.local.get(SITES_KEY);
  sites.value = (Array.isArray(stored[SITES_KEY]) ? stored[SITES_KEY] : []).join('\n');
}

async function save() {
  const lines = sites.value.split('\n').map((line) => line.trim()).filter(Boolean);
  await api.storage.local.set({ [SITES_KEY]: lines });
  saved.textContent = 'Saved.';
  setTimeout(() => { saved.textContent = ''; }, 2000);
}

async function showHost() {
  const el = document.getElementById('host');
  try {
    const s = await api.runtime.sendMessage({ kind: 'bridge-status' });
    const version = s.info && s.info.version ? ` (host ${s.info.version})` : '';
    const why = s.state === 'unavailable' ? ` — ${s.reason}${s.detail ? `: ${s.detail}` : ''}. Sites use the browser's own WebAuthn.` : '';
    el.textContent = `Host status: ${s.state}${version}${why}`;
  } catch (error) {
    el.textContent = `Host status: unknown (${error.message})`;
  }
}

document.getElementById('save').addEventListener('click', () => { save().catch((e) => { saved.textContent = e.message; }); });
load();
showHost();
