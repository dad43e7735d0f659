// Names a verify answer for the metrics from the outcome the verification
// path returns: the failure kind it recorded, the account error and its code,
// or what it refused.
import { ACCOUNT_ERRORS } from '../domain/errors.js';
import type { VerifyOutcome } from '../domain/verify/service.js';

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
  'unreadable_image',
  'missing_api_key',
  'invalid_api_key',
  'user_not_found',
  'insufficient_fund',
  'ip_not_allowed',
  'receiver_not_registered',
  'bad_request',
  'rate_limited',
  'busy',
  'unavailable',
  'outcome_unknown',
  'recheck_pending',
  'recheck_limit',
  'error',
] as const;

export function classifyOutcome(outcome: VerifyOutcome): OutcomeLabel {
  switch (outcome.kind) {
    case 'verified':
      return { outcome: 'success', result: 'success' };
    case 'failed':
      return { outcome: outcome.reason, result: 'failure' };
    case 'account_error':
      return { outcome: outcome.error, code: ACCOUNT_ERRORS[outcome.error].code, result: 'refused' };
    case 'bad_request':
      return { outcome: 'bad_request', result: 'refused' };
    case 'busy':
      return { outcome: 'busy', result: 'refused' };
    case 'throttled':
      return { outcome: 'rate_limited', result: 'refused' };
    case 'unavailable':
      return { outcome: 'unavailable', result: 'error' };
    case 'outcome_unknown':
      return { outcome: 'outcome_unknown', result: 'error' };
    // Not confirmed now (nothing charged); its re-check's own outcome is counted by the re-check metrics.
    case 'pending':
      return { outcome: 'recheck_pending', result: 'failure' };
    case 'recheck_limit':
      return { outcome: 'recheck_limit', code: 1027, result: 'refused' };
  }
}

/** An answer the verification path never saw: a rate limit, or a bug caught by the error handler. */
export function classifyStatus(httpStatus: number): OutcomeLabel {
  if (httpStatus === 429) return { outcome: 'rate_limited', result: 'refused' };
  if (httpStatus >= 400 && httpStatus < 500) return { outcome: 'bad_request', result: 'refused' };
  return { outcome: 'error', result: 'error' };
}
