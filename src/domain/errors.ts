// Spec §7: the only errors that carry a numeric code, with their exact texts.
export const ACCOUNT_ERRORS = {
  missing_api_key: { code: 1020, status: 401, message: 'api key is missing' },
  invalid_api_key: { code: 1021, status: 401, message: 'invalid api key' },
  user_not_found: { code: 1022, status: 400, message: 'user not found' },
  insufficient_fund: { code: 1023, status: 400, message: 'insufficient fund' },
  ip_not_allowed: { code: 1024, status: 403, message: 'ip address not allowed' },
} as const;

export type AccountErrorKind = keyof typeof ACCOUNT_ERRORS;

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
