/*
 * request-size.js — whether a request fits the native-messaging path both ways: its frame within the host's inbound
 * limit, and its answer within the 1 MiB a browser accepts from a native host. One that does not goes to the
 * browser's own WebAuthn (intake.js), which serves it (docs/errors.md).
 *
 * The answer is bounded from the request as the host bounds it before touching a key (the host's
 * ReplyChannel.refuseUnanswerable): clientDataJSON, base64url-encoded in the credential, holds the challenge
 * base64url-encoded and the origins; all else an answer carries (attestation, authenticator data, credential id,
 * user handle, extension outputs) stays within `replyAllowanceBytes`. This bound is never below the host's, so the
 * host's refusal stays a backstop no page reaches through the extension.
 *
 * Pure (node tests it).
 */
import { BINARY_MARKER, LIMITS, isPlainObject } from '../common/protocol.js';

/** The `fallback` reason: the request is larger than the native-messaging path carries. */
export const TOO_LARGE = 'too-large';

// clientDataJSON's members other than the challenge and origins, with their punctuation (the longest: a
// cross-origin webauthn.create; ClientDataJSON.swift).
const CLIENT_DATA_SKELETON = '{"type":"webauthn.create","challenge":"","origin":"","crossOrigin":true,"topOrigin":""}'.length;
// A host frame's members besides `options`: the id (at most requestIdBytes), type, the origins, crossOrigin.
const FRAME_SKELETON = LIMITS.requestIdBytes + 128;

const encoder = new TextEncoder();
const utf8Length = (text) => (typeof text === 'string' ? encoder.encode(text).length : 0);

/** The longest clientDataJSON the host could write for this request (bytes); the origins are serialized origins,
 *  which have nothing to escape. */
function clientDataBound(options, caller) {
  const challenge = isPlainObject(options) && isPlainObject(options.challenge) ? options.challenge[BINARY_MARKER] : '';
  return CLIENT_DATA_SKELETON + utf8Length(challenge) + utf8Length(caller.origin) + utf8Length(caller.topOrigin);
}

/**
 * Why a request (options as the page's codec encoded them, caller as admission.js gives it) cannot go to the host,
 * or '' when it can: its frame over the host's inbound limit (`inbound`: the host's `info` says it; else the
 * default), or its answer possibly over the outbound one.
 */
export function tooLarge(options, caller, inbound = LIMITS.defaultInboundFrameBytes) {
  const limit = Number.isSafeInteger(inbound) && inbound > 0 ? inbound : LIMITS.defaultInboundFrameBytes;
  const frame = FRAME_SKELETON + utf8Length(JSON.stringify(options)) + utf8Length(caller.origin) + utf8Length(caller.topOrigin);
  if (frame > limit) {
    return `its frame (${frame} bytes) is over the host's ${limit}`;
  }
  const answer = Math.ceil(clientDataBound(options, caller) * 4 / 3) + LIMITS.replyAllowanceBytes;
  if (answer > LIMITS.outboundFrameBytes) {
    return `its answer (up to ${answer} bytes) could be over the browser's ${LIMITS.outboundFrameBytes} from a native host`;
  }
  return '';
}
