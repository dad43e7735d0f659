// The rules of webhook endpoints and retries, as pure functions: which URLs
// are accepted, when a failed delivery is tried again, and how secrets are
// sealed under SECRETS_KEY.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkEndpointUrl } from '../../src/domain/webhooks/endpoint-url.js';
import { parseEventTypes } from '../../src/domain/webhooks/endpoints.js';
import { nextAttemptAt, parseRetryAfter, type RetryPolicy } from '../../src/domain/webhooks/retry.js';
import { secretBox, SecretKeyMissingError } from '../../src/domain/secret-box.js';
import { generateWebhookSecret } from '../../src/domain/webhooks/signature.js';

const admin = { host: '127.0.0.1', port: 3001 };

describe('webhook endpoint URLs', () => {
  it.each([
    ['https://shop.example/hooks/slipgate', 'https://shop.example/hooks/slipgate'],
    ['http://127.0.0.1:8080/hooks', 'http://127.0.0.1:8080/hooks'],
    ['http://localhost:9000/x?y=1', 'http://localhost:9000/x?y=1'],
    ['http://[::1]:9000/x', 'http://[::1]:9000/x'],
    ['https://127.0.0.1:3002/x', 'https://127.0.0.1:3002/x'],
  ])('accepts %s', (url, normalised) => {
    expect(checkEndpointUrl(url, admin)).toEqual({ ok: true, url: normalised });
  });

  it.each([
    ['http://shop.example/hooks', /must use https/],
    ['http://10.0.0.5/hooks', /must use https/],
    ['ftp://shop.example/x', /must use https/],
    ['https://user:pass@shop.example/x', /user name or password/],
    ['https://shop.example/x#frag', /fragment/],
    ['not a url', /not a valid absolute URL/],
    ['http://127.0.0.1:3001/graphql', /admin listener/],
    ['http://localhost:3001/graphql', /admin listener/],
    [`https://shop.example/${'a'.repeat(2100)}`, /longer than/],
  ])('refuses %s', (url, problem) => {
    const checked = checkEndpointUrl(url, admin);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problem).toMatch(problem);
  });

  it('refuses any loopback name for an admin listener on every address', () => {
    expect(checkEndpointUrl('http://127.0.0.2:4000/x', { host: '0.0.0.0', port: 4000 }).ok).toBe(false);
    expect(checkEndpointUrl('https://admin.internal:4000/x', { host: 'admin.internal', port: 4000 }).ok).toBe(false);
    expect(checkEndpointUrl('http://127.0.0.1:4001/x', { host: '0.0.0.0', port: 4000 }).ok).toBe(true);
  });
});

describe('event types', () => {
  it('defaults to every type, and refuses unknown or empty lists', () => {
    expect(parseEventTypes(undefined)).toEqual(['verification.succeeded', 'payment_request.paid', 'payment_request.expired', 'payment_request.late_transfer']);
    expect(parseEventTypes([' verification.succeeded', 'verification.succeeded'])).toEqual(['verification.succeeded']);
    expect(() => parseEventTypes(['payment.maybe'])).toThrow(/unknown event type "payment.maybe"/);
    expect(() => parseEventTypes([''])).toThrow(/at least one/);
  });
});

describe('retry schedule', () => {
  const policy: RetryPolicy = { baseMs: 30_000, maxDelayMs: 6 * 3_600_000, windowMs: 3 * 86_400_000 };
  const createdAt = new Date('2026-01-01T00:00:00Z');
  const after = (failures: number, random: number, nowMs = createdAt.getTime()) =>
    nextAttemptAt(policy, { createdAt, now: new Date(nowMs), failures, retryAfterMs: null }, () => random)!.getTime() - nowMs;

  it('doubles the step after each failure, jittered within its upper half, up to the cap', () => {
    expect([1, 2, 3, 4].map((n) => after(n, 0))).toEqual([15_000, 30_000, 60_000, 120_000]);
    expect([1, 2, 3, 4].map((n) => after(n, 1))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(after(30, 1)).toBe(6 * 3_600_000);
    expect(after(30, 0)).toBe(3 * 3_600_000);
  });

  it('keeps retrying for the whole window (at least 3 days), the last attempt at its end, then gives up', () => {
    let now = createdAt.getTime();
    let failures = 0;
    for (;;) {
      const next = nextAttemptAt(policy, { createdAt, now: new Date(now), failures: ++failures, retryAfterMs: null }, () => 0.5);
      if (!next) break;
      now = next.getTime();
    }
    expect(now).toBe(createdAt.getTime() + 3 * 86_400_000);
    expect(failures).toBeGreaterThan(10);
  });

  it('takes Retry-After (seconds or a date) instead of the backoff, capped at the longest pause', () => {
    const now = new Date('2026-01-01T01:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 01:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    const at = (retryAfterMs: number) => nextAttemptAt(policy, { createdAt, now, failures: 1, retryAfterMs })!.getTime() - now.getTime();
    expect(at(120_000)).toBe(120_000);
    expect(at(86_400_000)).toBe(6 * 3_600_000);
  });
});

describe('signing secrets at rest', () => {
  it('seals with SECRETS_KEY (AES-256-GCM, a fresh IV each time) and opens back; plain without a key', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const box = secretBox(randomBytes(32));
    const a = box.seal(secret);
    const b = box.seal(secret);
    expect(a).not.toContain(secret.slice(6));
    expect(a).not.toBe(b);
    expect(box.open(a)).toBe(secret);
    expect(secretBox(null).seal(secret)).toBe(`plain:${secret}`);
    expect(box.open(`plain:${secret}`)).toBe(secret);
  });

  it('refuses to open with a wrong or missing key', () => {
    const sealed = secretBox(randomBytes(32)).seal('whsec_x');
    expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => secretBox(null).open(sealed)).toThrow(SecretKeyMissingError);
  });
});
