// Fields shared by the UPSTREAMS entries of every provider, with the
// messages an operator reads when one is wrong.
import { z } from 'zod';
import { DEFAULT_IDLE_SOCKET_TIMEOUT_MS } from './shared/bank-http.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** name, weight and enabled: every entry has them. */
export const domainFields = {
  name: z.string().regex(NAME, 'must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit'),
  weight: z.number().positive('must be greater than 0').max(1_000_000, 'must be at most 1000000').default(1),
  priority: z.number().int('must be a whole number').min(1, 'must be at least 1 (1 is tried first)').max(100, 'must be at most 100').default(1),
  enabled: z.boolean().default(true),
};

export const text = z.string().min(1, 'must not be empty');

const baseUrl = z.string().superRefine((value, ctx) => {
  const problem = baseUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** A real bank's connection fields: where it is, and how long an idle socket may stay open. */
export const bankFields = {
  ...domainFields,
  baseUrl,
  // Below the idle timeouts banks and load balancers commonly use (5 s and up),
  // so slipgate closes an idle socket before the bank does.
  idleSocketTimeoutMs: z
    .number()
    .int()
    .min(100, 'must be at least 100 (milliseconds)')
    .max(300_000, 'must be at most 300000 (5 minutes)')
    .default(DEFAULT_IDLE_SOCKET_TIMEOUT_MS),
};

/**
 * A slip API's connection fields: as a bank's, but `baseUrl` defaults to the
 * provider's public address, and `readsPictures` (default false) lets the
 * pool send this domain a slip picture whose QR slipgate cannot read.
 */
export function slipApiFields(defaultBaseUrl: string) {
  return { ...bankFields, baseUrl: baseUrl.default(defaultBaseUrl), readsPictures: z.boolean().default(false) };
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as https://openapi.bank.example';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https:// (or http:// for a local simulator)';
  if (url.username || url.password) return 'must not contain credentials; use the credential fields';
  if (url.search || url.hash) return 'must not have a query string or fragment';
  return undefined;
}
