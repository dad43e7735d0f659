// Names a verify answer for the metrics from the outcome the verification
// path returns: the failure kind it recorded, the account error's code, or
// the HTTP status of what it refused.
import { ACCOUNT_ERRORS } from '../domain/errors.js';
import type { VerifyOutcome } from '../domain/verify.js';

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
  'upstream_mismatch',
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

const BY_CODE = new Map<number, string>(Object.entries(ACCOUNT_ERRORS).map(([kind, e]) => [e.code, kind]));

export function classifyOutcome({ httpStatus, body, kind }: VerifyOutcome): OutcomeLabel {
  if (body.status === 'success') return { outcome: 'success', result: 'success' };
  const code = body.code;
  const account = code === undefined ? undefined : BY_CODE.get(code);
  if (account) return { outcome: account, code, result: 'refused' };
  if (httpStatus === 200) return { outcome: kind ?? 'failure_other', result: 'failure' };
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
