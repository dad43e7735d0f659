// Results adapters hand back, with the texts callers see (docs/contract.md#verification-failures). A failure
// may carry `connectionFailed`: the bank was never reached, so the pool may
// safely ask another domain within the same deadline.
import type { BankAnswer, UpstreamFailure, UpstreamFailureKind } from '../../domain/ports/upstream.js';

/**
 * Internal failure shape: the pool strips these flags before answering.
 * - `connectionFailed`: the bank was never reached; another domain is safe.
 * - `unusable`: this domain cannot serve anyone (quota or package used up,
 *   credit short, key refused, IP not allowed), said in a few words for the
 *   log. The same verification goes to the next usable domain (a read, safe
 *   to repeat elsewhere) and this one is skipped until its quota is back.
 * - `quotaRemaining`: the quota the provider reported with this answer
 *   (RDCW reports it in every answer).
 */
export type AdapterFailure = UpstreamFailure & { connectionFailed?: true; unusable?: string; quotaRemaining?: number | null };
export type AdapterResult = (Extract<BankAnswer, { ok: true }> & { quotaRemaining?: number | null }) | AdapterFailure;

export const MESSAGES = {
  timeout: 'verification service timed out',
  unavailable: 'verification service unavailable',
  error: 'verification service error',
  notFound: 'slip not found',
} as const;

export function failure(kind: UpstreamFailureKind, message: string, upstream: string | null): AdapterFailure {
  return { ok: false, kind, message, upstream };
}

export const timedOut = (upstream: string): AdapterFailure => failure('upstream_timeout', MESSAGES.timeout, upstream);

export const unreachable = (upstream: string): AdapterFailure => ({
  ...failure('upstream_unavailable', MESSAGES.unavailable, upstream),
  connectionFailed: true,
});

export const bankError = (upstream: string, detail: string): AdapterFailure =>
  failure('upstream_error', `${MESSAGES.error}: ${detail}`, upstream);

export const slipNotFound = (upstream: string, bankText: string | undefined): AdapterFailure =>
  failure('slip_not_found', `${MESSAGES.notFound}: ${plainWords(bankText) || 'transaction not found'}`, upstream);

export function isConnectionFailure(result: BankAnswer): boolean {
  return !result.ok && (result as AdapterFailure).connectionFailed === true;
}

/** The domain cannot serve anyone now; the pool tries the next usable domain. */
export const domainUnusable = (upstream: string, reason: string): AdapterFailure => ({
  ...failure('upstream_unavailable', `${MESSAGES.unavailable}: ${reason}`, upstream),
  unusable: reason,
});

/**
 * A refusal told only by its HTTP status (401 or 403 without a code slipgate
 * reads): the key is not accepted, so this domain cannot serve anyone, as
 * with a documented key-refused code. Undefined for any other status.
 */
export function keyRefusedByStatus(status: number): string | undefined {
  return status === 401 || status === 403 ? `key refused (HTTP ${status})` : undefined;
}

/**
 * The network has the slip but publishes it later: free, re-checked no sooner
 * than `retryAfterMs` when the provider names a delay (SlipOK does), else on
 * the re-checks' own schedule.
 */
export const slipPending = (upstream: string, detail: string, retryAfterMs?: number): AdapterFailure => ({
  ...failure('slip_not_found', `${MESSAGES.notFound}: ${detail}`, upstream),
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

/** The public shape only: internal flags never reach callers or audit records. */
export function publicFailure(result: UpstreamFailure): UpstreamFailure {
  const out: UpstreamFailure = { ok: false, kind: result.kind, message: result.message, upstream: result.upstream };
  if (result.retryAfterMs !== undefined) out.retryAfterMs = result.retryAfterMs;
  return out;
}

const MAX_BANK_TEXT = 200;

/**
 * A bank's status text as plain lower-case words for the caller's message:
 * "Transaction not found or too old." → "transaction not found or too old".
 * Control characters are dropped and the length is capped, since the text
 * comes from outside and lands in responses and audit records.
 */
export function plainWords(text: unknown): string {
  if (typeof text !== 'string') return '';
  const cleaned = text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '')
    .slice(0, MAX_BANK_TEXT);
  // All-caps banner texts ("TRANSACTION NOT FOUND") read better in lower case;
  // otherwise only the sentence-initial capital goes.
  if (cleaned === cleaned.toUpperCase()) return cleaned.toLowerCase();
  return /^[A-Z][a-z]/.test(cleaned) ? cleaned.charAt(0).toLowerCase() + cleaned.slice(1) : cleaned;
}
