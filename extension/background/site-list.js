/*
 * site-list.js — the per-site switch: which sites the user leaves to the browser's own WebAuthn (options page,
 * storage.local "browserSites"). Pure (node tests it through router.js).
 */
import { urlOrigin } from './admission.js';

/**
 * One line of the per-site switch → a matcher. Accepted forms:
 *   example.com            that host exactly (any scheme/port)
 *   *.example.com          example.com and every subdomain
 *   https://example.com:8443   that origin exactly
 * Blank lines and lines starting with # are ignored (null).
 */
export function parseSitePattern(line) {
  const text = String(line).trim().toLowerCase();
  if (!text || text.startsWith('#')) return null;
  if (text.includes('://')) {
    const origin = urlOrigin(text);
    return origin ? { kind: 'origin', value: origin } : null;
  }
  if (text.startsWith('*.')) return { kind: 'domain', value: text.slice(2).replace(/\.$/, '') };
  return { kind: 'host', value: text.replace(/\.$/, '') };
}

export function siteMatches(lines, origin) {
  if (!Array.isArray(lines) || !origin) return false;
  let host;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch (_) {
    return false;
  }
  for (const line of lines) {
    const p = parseSitePattern(line);
    if (!p) continue;
    if (p.kind === 'origin' && p.value === origin) return true;
    if (p.kind === 'host' && p.value === host) return true;
    if (p.kind === 'domain' && (host === p.value || host.endsWith('.' + p.value))) return true;
  }
  return false;
}
