// A slip picture sent as bytes (docs/contract.md#slip-pictures): the raw body
// with `Content-Type: image/jpeg|png|webp` and the options as query
// parameters, or `multipart/form-data` with the file in an `image` part and
// the options as fields. The edge (src/http) reads the bytes and the options;
// this file decides what they mean, as verify/request.ts does for JSON. The
// answer is the same as for `image` in JSON; only the base64 is gone.
import { parseCheckRequest } from '../checks/request.js';
import type { CheckRequest } from '../checks/run.js';
import { isPaymentRequestId } from '../payments/input.js';
import { pictureBytes } from './image-body.js';
import type { BodyCheck } from './request.js';
import type { PictureBody } from './types.js';

/** The picture types the raw body may declare; the file's own signature still decides. */
const RAW_PICTURE_TYPE = /^image\/(?:jpeg|png|webp)\s*(?:;|$)/i;
const MULTIPART_TYPE = /^multipart\/form-data\s*;/i;
const OPTION_NAMES = ['paymentRequest', 'checks', 'recheck'] as const;

/** How a body of this content type carries a picture as bytes; null: it does not (JSON, or refused). */
export function pictureForm(contentType: string | undefined): 'raw' | 'multipart' | null {
  if (!contentType) return null;
  if (RAW_PICTURE_TYPE.test(contentType)) return 'raw';
  if (MULTIPART_TYPE.test(contentType)) return 'multipart';
  return null;
}

/**
 * The 415's message. Any type that is not about pictures keeps the
 * contract's own text; a picture or form type says what is taken instead.
 */
export function unsupportedTypeMessage(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase().slice(0, 100);
  if (type.startsWith('image/')) return `Content-Type ${type} is not read; send image/jpeg, image/png or image/webp (or application/json)`;
  if (type === 'multipart/form-data') return 'Content-Type multipart/form-data needs its boundary parameter';
  return 'Content-Type must be application/json';
}

export function checkPictureBody(picture: PictureBody): BodyCheck {
  const image = pictureBytes(picture.bytes);
  if (!image.ok) return { ok: false, problem: 'invalid', message: image.message };
  const options = new Map<string, string>();
  for (const [name, value] of picture.options) {
    if (!(OPTION_NAMES as readonly string[]).includes(name)) {
      return { ok: false, problem: 'invalid', message: `unknown option ${JSON.stringify(name)} beside a picture; known options: ${OPTION_NAMES.join(', ')}` };
    }
    if (options.has(name)) return { ok: false, problem: 'invalid', message: `${name} is given more than once` };
    options.set(name, value);
  }
  let paying: { paymentRequest?: string; recheck?: true } = {};
  const paymentRequest = options.get('paymentRequest');
  if (paymentRequest !== undefined) {
    if (!isPaymentRequestId(paymentRequest)) return { ok: false, problem: 'invalid', message: 'paymentRequest must be a payment request id (pr_ and 32 hex digits)' };
    paying = { paymentRequest };
  }
  // As `"recheck": true` in JSON (docs/payments.md#re-checks), written as text.
  const recheck = options.get('recheck');
  if (recheck !== undefined && recheck !== 'true' && recheck !== 'false') return { ok: false, problem: 'invalid', message: 'recheck must be true or false' };
  if (recheck === 'true') paying = { ...paying, recheck: true };
  const checksText = options.get('checks');
  if (checksText === undefined) return { ok: true, image: image.bytes, body: {}, ...paying };
  const checks = checksOption(checksText);
  if (!checks.ok) return { ok: false, problem: 'invalid', message: checks.message };
  return { ok: true, image: image.bytes, body: {}, checks: checks.checks, ...paying };
}

/** `checks` beside a picture is the same object as in JSON, written as JSON text. */
function checksOption(text: string): { ok: true; checks: CheckRequest } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'checks beside a picture must be JSON text, e.g. {"duplicate": true, "amount": 250.00}' };
  }
  return parseCheckRequest(value);
}
