/*
 * chromium-errors.js — the errors the background answers pages with in Chromium's own words, from their one
 * table, chromium-texts.js (the host and the classic scripts keep copies that tests hold to it).
 */
import texts from './chromium-texts.js';

/** Chromium's NotAllowedError: the user cancelled, the time ran out, or the request was not allowed. */
export const NOT_ALLOWED = Object.freeze({ name: 'NotAllowedError', message: texts.notAllowed });

/** A second request from a tab while its first one is pending. */
export const PENDING = Object.freeze({ name: 'NotAllowedError', message: texts.pending });

/** The request's page went away, or Chromium's own would have aborted it. */
export const ABORTED = Object.freeze({ name: 'AbortError', message: texts.aborted });

/** A request from a page whose tab does not have the focus. */
export const NO_FOCUS = Object.freeze({ name: 'NotAllowedError', message: texts.focus });
