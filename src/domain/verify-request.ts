// Validation of the verify request body (spec §2.1). The spec leaves bad input
// open; our answer is a 4xx JSON error that names the problem.
import type { CheckRequest } from './checks.js';
import { parseCheckRequest } from './check-request.js';

/** A body that could not even be read (too large, bad encoding). */
export interface BodyProblem {
  status: 400 | 413 | 415;
  message: string;
}

export type BodyCheck = { ok: true; qrcode: string; body: Record<string, unknown>; checks?: CheckRequest } | ({ ok: false } & BodyProblem);

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

export function checkVerifyBody(contentType: string | undefined, raw: Buffer, unreadable?: BodyProblem): BodyCheck {
  if (unreadable) return { ok: false, ...unreadable };
  if (!contentType || !JSON_TYPE.test(contentType)) {
    return { ok: false, status: 415, message: 'Content-Type must be application/json' };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, status: 400, message: 'request body is not valid JSON' };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, status: 400, message: 'request body must be a JSON object' };
  }
  const record = body as Record<string, unknown>;
  const qrcode = Object.hasOwn(record, 'qrcode') ? record.qrcode : undefined;
  if (qrcode === undefined || qrcode === null) return { ok: false, status: 400, message: 'qrcode is required' };
  if (typeof qrcode !== 'string') return { ok: false, status: 400, message: 'qrcode must be a string' };
  if (qrcode.trim() === '') return { ok: false, status: 400, message: 'qrcode must not be empty' };
  // Opt-in merchant checks (issue 9); absent means the spec's plain response.
  if (!Object.hasOwn(record, 'checks')) return { ok: true, qrcode, body: record };
  const checks = parseCheckRequest(record.checks);
  if (!checks.ok) return { ok: false, status: 400, message: checks.message };
  return { ok: true, qrcode, body: record, checks: checks.checks };
}
