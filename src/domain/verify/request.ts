// Validation of the verify request body (docs/contract.md#request). The
// contract leaves bad input open; our answer is a body problem that names it.
import type { CheckRequest } from '../checks/run.js';
import { parseCheckRequest } from '../checks/request.js';
import { imageField } from './image-body.js';
import type { BodyProblem } from './types.js';
import { isPaymentRequestId } from '../payments/input.js';
import { unsupportedTypeMessage } from './picture-body.js';

/** Exactly one of `qrcode` (the QR text) and `image` (the decoded picture file) is set. */
export type BodyCheck =
  | ({ ok: true; body: Record<string, unknown>; checks?: CheckRequest; paymentRequest?: string; recheck?: true } & ({ qrcode: string; image?: undefined } | { qrcode?: undefined; image: Buffer }))
  | ({ ok: false } & BodyProblem);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * `maxQrcodeBytes`: bodies are read up to the (larger) image limit, and only
 * an image body may be bigger than this; any other is refused as before.
 */
export function checkVerifyBody(contentType: string | undefined, raw: Buffer, maxQrcodeBytes = Number.POSITIVE_INFINITY): BodyCheck {
  const tooLarge: BodyCheck = { ok: false, problem: 'too_large', message: `request body is larger than ${maxQrcodeBytes} bytes` };
  const large = raw.length > maxQrcodeBytes;
  if (!contentType || !JSON_TYPE.test(contentType)) {
    return large ? tooLarge : { ok: false, problem: 'unsupported_media_type', message: unsupportedTypeMessage(contentType) };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return large ? tooLarge : { ok: false, problem: 'invalid', message: 'request body is not valid JSON' };
  }
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const present = (name: string) => isObject && Object.hasOwn(body as object, name) && (body as Record<string, unknown>)[name] != null;
  if (large && !(present('image') && typeof (body as Record<string, unknown>).image === 'string')) return tooLarge;
  if (!isObject) return { ok: false, problem: 'invalid', message: 'request body must be a JSON object' };
  const record = body as Record<string, unknown>;
  if (present('qrcode') && present('image')) return { ok: false, problem: 'invalid', message: 'send either qrcode or image, not both' };

  let source: { qrcode: string } | { image: Buffer };
  if (present('image')) {
    const image = imageField(record.image);
    if (!image.ok) return { ok: false, problem: 'invalid', message: image.message };
    source = { image: image.bytes };
  } else {
    const qrcode = record.qrcode;
    if (qrcode === undefined || qrcode === null) return { ok: false, problem: 'invalid', message: 'qrcode is required' };
    if (typeof qrcode !== 'string') return { ok: false, problem: 'invalid', message: 'qrcode must be a string' };
    if (qrcode.trim() === '') return { ok: false, problem: 'invalid', message: 'qrcode must not be empty' };
    source = { qrcode };
  }
  // Opt-in: the payment request this slip should pay (docs/payments.md); its existence is checked before the hold.
  let paying: { paymentRequest?: string; recheck?: true } = {};
  if (Object.hasOwn(record, 'paymentRequest')) {
    if (!isPaymentRequestId(record.paymentRequest)) return { ok: false, problem: 'invalid', message: 'paymentRequest must be a payment request id (pr_ and 32 hex digits)' };
    paying = { paymentRequest: record.paymentRequest };
  }
  // Opt-in: a slip the bank does not know yet is re-checked (202) rather than answered not found (docs/payments.md#re-checks).
  if (Object.hasOwn(record, 'recheck')) {
    if (typeof record.recheck !== 'boolean') return { ok: false, problem: 'invalid', message: 'recheck must be true or false' };
    if (record.recheck) paying = { ...paying, recheck: true };
  }
  // Opt-in merchant checks; absent means the contract's plain response.
  if (!Object.hasOwn(record, 'checks')) return { ok: true, ...source, body: record, ...paying };
  const checks = parseCheckRequest(record.checks);
  if (!checks.ok) return { ok: false, problem: 'invalid', message: checks.message };
  return { ok: true, ...source, body: record, checks: checks.checks, ...paying };
}
