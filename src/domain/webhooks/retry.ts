// When a failed delivery is tried again: exponential backoff with jitter,
// or what the endpoint asked for in Retry-After, until the retry window
// (3 days by default) has passed since the event; then it is failed (and
// can still be redelivered by hand).
import type { WebhookAnswer } from '../ports/webhook-sender.js';
import type { DeliveryNext, WebhookAttempt, WebhookDelivery } from './types.js';

export interface RetryPolicy {
  /** Delay after the first failed attempt; doubles after each. */
  baseMs: number;
  /** The longest delay between two attempts (backoff and Retry-After alike). */
  maxDelayMs: number;
  /** How long after the event attempts continue. */
  windowMs: number;
}

/**
 * The next attempt's time after `failures` failed attempts, or null to give
 * up. Jitter draws from the upper half of each step, so retries of many
 * deliveries spread out and none comes sooner than half the step.
 */
export function nextAttemptAt(
  policy: RetryPolicy,
  input: { createdAt: Date; now: Date; failures: number; retryAfterMs: number | null },
  random: () => number = Math.random,
): Date | null {
  const deadline = input.createdAt.getTime() + policy.windowMs;
  if (input.now.getTime() >= deadline) return null;
  const step = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** Math.max(0, input.failures - 1));
  const backoff = step / 2 + (random() * step) / 2;
  const delay = input.retryAfterMs === null ? backoff : Math.min(policy.maxDelayMs, input.retryAfterMs);
  // The last attempt is made at the end of the window, not skipped past it.
  return new Date(Math.min(input.now.getTime() + delay, deadline));
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Null for a 2xx: every other answer, redirects included, is a failed attempt. */
export function failureOf(answer: WebhookAnswer): string | null {
  if (answer.statusCode === null) return answer.error;
  if (answer.statusCode >= 200 && answer.statusCode < 300) return null;
  if (answer.statusCode >= 300 && answer.statusCode < 400) return `HTTP ${answer.statusCode}: redirects are not followed`;
  return `HTTP ${answer.statusCode}`;
}

/** What follows an attempt: delivered, tried again later, or failed for good (the window is over, or the endpoint is gone). */
export function afterAttempt(policy: RetryPolicy, d: WebhookDelivery, attempt: WebhookAttempt, answer: WebhookAnswer, endpointLive: boolean): DeliveryNext {
  if (attempt.error === null) return { state: 'delivered' };
  if (!endpointLive) return { state: 'failed' };
  const retryAfterMs = answer.statusCode === null ? null : parseRetryAfter(answer.retryAfter, attempt.at);
  const failures = d.attempts.length + 1;
  const retryAt = nextAttemptAt(policy, { createdAt: d.createdAt, now: attempt.at, failures, retryAfterMs });
  return retryAt ? { state: 'pending', nextAttemptAt: retryAt } : { state: 'failed' };
}
