// The account errors: the only errors that carry a numeric code, with their
// exact texts (docs/contract.md#errors). Their HTTP statuses are the edge's
// business (src/http/verify-answer.ts).
export const ACCOUNT_ERRORS = {
  missing_api_key: { code: 1020, message: 'api key is missing' },
  invalid_api_key: { code: 1021, message: 'invalid api key' },
  user_not_found: { code: 1022, message: 'user not found' },
  insufficient_fund: { code: 1023, message: 'insufficient fund' },
  ip_not_allowed: { code: 1024, message: 'ip address not allowed' },
  /** The account's receiver policy is `require` and the slip paid none of its active registered receivers. */
  receiver_not_registered: { code: 1025, message: 'receiver not registered' },
} as const;

export type AccountErrorKind = keyof typeof ACCOUNT_ERRORS;

/**
 * The payment request routes' own coded error (HTTP 409): the reference was
 * used before for another amount, receiver or expiry. Not an account error:
 * the key and account are fine, the order number is not new.
 */
export const REFERENCE_CONFLICT = { code: 1026, message: 'reference already used' } as const;

/**
 * The verify route's refusal (HTTP 429) of a slip to re-check when the
 * account has RECHECK_MAX_PER_ACCOUNT being re-checked already: nothing kept,
 * nothing charged (docs/payments.md#re-checks).
 */
export const RECHECK_LIMIT = { code: 1027, message: 'too many slips being re-checked for this account; retry later' } as const;

export const UPSTREAM_MESSAGES = {
  upstream_timeout: 'verification service timed out',
  upstream_unavailable: 'verification service unavailable',
  upstream_error: 'verification service error',
  interrupted: 'verification interrupted before it finished',
} as const;

/** Input a person typed that the domain refuses; callers show its message as is. */
export class InputError extends Error {
  override name = 'InputError';
}
