// The one place a verification outcome becomes an HTTP answer: its status,
// its headers and its JSON envelope (docs/contract.md#responses). The
// domain never sees a status code.
import { ACCOUNT_ERRORS, RECHECK_LIMIT, type AccountErrorKind } from '../domain/errors.js';
import type { CheckResults } from '../domain/checks/run.js';
import type { VerifiedSlip } from '../domain/types.js';
import type { PaymentVerdict } from '../domain/payments/paying.js';
import type { BodyProblem, VerifyOutcome } from '../domain/verify/types.js';

/** The account's balance after the request, on answers about a live account. */
const CREDITS_HEADER = 'x-credits-remaining';

type VerifyBody =
  | { status: 'success'; data: VerifiedSlip; message: string; qrcode: string; checks?: CheckResults; paymentRequest?: PaymentVerdict }
  | { status: 'pending'; verificationId: string; paymentRequest?: { id: string; status: 'verifying' }; message: string }
  | { status: 'error'; code?: number; message: string };

export interface VerifyAnswer {
  status: number;
  headers: Record<string, string>;
  body: VerifyBody;
}

export const ACCOUNT_STATUS: Record<AccountErrorKind, number> = {
  missing_api_key: 401,
  invalid_api_key: 401,
  user_not_found: 400,
  insufficient_fund: 400,
  ip_not_allowed: 403,
  receiver_not_registered: 400,
};

export const BODY_PROBLEM_STATUS: Record<BodyProblem['problem'], number> = {
  too_large: 413,
  unsupported_media_type: 415,
  invalid: 400,
};

const PENDING_MESSAGE = 'the bank has not shown this transfer yet; it is checked again for a few minutes and nothing is charged until it is confirmed';
const OUTCOME_UNKNOWN = 'the verification could not be recorded and may have been charged; do not retry: look it up by x-request-id first';

export function verifyAnswer(outcome: VerifyOutcome): VerifyAnswer {
  const headers: Record<string, string> = {};
  if ('creditsRemaining' in outcome && outcome.creditsRemaining !== undefined) headers[CREDITS_HEADER] = String(outcome.creditsRemaining);
  switch (outcome.kind) {
    case 'verified': {
      const success = { status: 'success', data: outcome.slip, message: 'slip verified', qrcode: outcome.qrcode } as const;
      // Without `checks` or `paymentRequest` the body is exactly the contract's; with them, one extra field each.
      const extras = { ...(outcome.checks ? { checks: outcome.checks } : {}), ...(outcome.paymentRequest ? { paymentRequest: outcome.paymentRequest } : {}) };
      return { status: 200, headers, body: { ...success, ...extras } };
    }
    // The network's answers, yes or no, are HTTP 200: the request itself was fine.
    case 'failed':
      return { status: 200, headers, body: error(outcome.message) };
    case 'account_error': {
      const { code, message } = ACCOUNT_ERRORS[outcome.error];
      return { status: ACCOUNT_STATUS[outcome.error], headers, body: { status: 'error', code, message } };
    }
    case 'bad_request':
      return { status: BODY_PROBLEM_STATUS[outcome.problem], headers, body: error(outcome.message) };
    case 'busy':
      // A slot frees within seconds.
      return { status: 429, headers: { ...headers, 'retry-after': '1' }, body: error(outcome.message) };
    case 'throttled':
      return { status: 429, headers: { 'retry-after': String(outcome.retryAfterSeconds) }, body: error(outcome.message) };
    case 'unavailable':
      return { status: 503, headers, body: error(outcome.message) };
    // Accepted, not decided: the answer comes later (GET /api/v1/verifications/{id}, the payment request, an event).
    case 'pending': {
      const about = outcome.paymentRequest ? { paymentRequest: outcome.paymentRequest } : {};
      return { status: 202, headers, body: { status: 'pending', verificationId: outcome.verificationId, ...about, message: PENDING_MESSAGE } };
    }
    case 'recheck_limit':
      return { status: 429, headers: { ...headers, 'retry-after': '60' }, body: { status: 'error', code: RECHECK_LIMIT.code, message: RECHECK_LIMIT.message } };
    case 'outcome_unknown':
      return { status: 500, headers, body: error(OUTCOME_UNKNOWN) };
  }
}

function error(message: string): VerifyBody {
  return { status: 'error', message };
}
