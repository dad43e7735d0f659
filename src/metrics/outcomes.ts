// Names a verify answer for the metrics from what the public route sends:
// the texts are fixed by the API contract, so the answer itself says which
// failure it was without the verification path having to report it.
import { ACCOUNT_ERRORS } from '../domain/errors.js';
import type { VerifyOutcome } from '../domain/verify.js';
import { MESSAGES } from '../upstream/shared/outcomes.js';

export interface OutcomeLabel {
  outcome: string;
  code?: number;
  result: 'success' | 'failure' | 'refused' | 'error';
}

/** Every outcome label value the verify route can produce (dashboards, docs, tests). */
export const VERIFICATION_OUTCOMES = [
  'success',
  'invalid_qr',
  'slip_not_found',
  'upstream_timeout',
  'upstream_unavailable',
  'upstream_error',
  'failure_other',
  'missing_api_key',
  'invalid_api_key',
  'user_not_found',
  'insufficient_fund',
  'bad_request',
  'rate_limited',
  'busy',
  'unavailable',
  'outcome_unknown',
  'error',
] as const;

const FAILURE_PREFIXES: [string, string][] = [
  ['invalid slip QR code', 'invalid_qr'],
  [MESSAGES.notFound, 'slip_not_found'],
  [MESSAGES.timeout, 'upstream_timeout'],
  [MESSAGES.unavailable, 'upstream_unavailable'],
  [MESSAGES.error, 'upstream_error'],
];

const BY_CODE = new Map<number, string>(Object.entries(ACCOUNT_ERRORS).map(([kind, e]) => [e.code, kind]));

export function classifyOutcome({ httpStatus, body }: VerifyOutcome): OutcomeLabel {
  if (body.status === 'success') return { outcome: 'success', result: 'success' };
  const code = body.code;
  const account = code === undefined ? undefined : BY_CODE.get(code);
  if (account) return { outcome: account, code, result: 'refused' };
  if (httpStatus === 200) {
    const match = FAILURE_PREFIXES.find(([prefix]) => body.message.startsWith(prefix));
    return { outcome: match?.[1] ?? 'failure_other', result: 'failure' };
  }
  if (httpStatus === 429) return { outcome: 'busy', result: 'refused' };
  if (httpStatus === 503) return { outcome: 'unavailable', result: 'error' };
  if (httpStatus === 500) return { outcome: 'outcome_unknown', result: 'error' };
  if (httpStatus >= 400 && httpStatus < 500) return { outcome: 'bad_request', result: 'refused' };
  return { outcome: 'error', result: 'error' };
}

/** An answer the verification path never saw: a rate limit, or a bug caught by the error handler. */
export function classifyStatus(httpStatus: number): OutcomeLabel {
  if (httpStatus === 429) return { outcome: 'rate_limited', result: 'refused' };
  if (httpStatus >= 400 && httpStatus < 500) return { outcome: 'bad_request', result: 'refused' };
  return { outcome: 'error', result: 'error' };
}
