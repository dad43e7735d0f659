// The rules of webhook endpoints and retries, as pure functions: which URLs
// are accepted, when a failed delivery is tried again, and how secrets are
// sealed under SECRETS_KEY.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkEndpointUrl } from '../../../src/domain/webhooks/endpoint-url.js';
import { parseEventTypes } from '../../../src/domain/webhooks/endpoints.js';
import { nextAttemptAt, parseRetryAfter, type RetryPolicy } from '../../../src/domain/webhooks/retry.js';
import { secretBox, SecretKeyMissingError } from '../../../src/domain/secret-box.js';
import { generateWebhookSecret } from '../../../src/domain/webhooks/signature.js';

const admin = { host: '127.0.0.1', port: 3001 };
/** WEBHOOK_ALLOW_PRIVATE=true: the local receivers of tests and the quickstart. */
const local = { admin, allowPrivate: true };
const strict = { admin, allowPrivate: false };

describe('webhook endpoint URLs', () => {
  it.each([
    ['https://shop.example/hooks/slipgate', 'https://shop.example/hooks/slipgate'],
    ['http://127.0.0.1:8080/hooks', 'http://127.0.0.1:8080/hooks'],
    ['http://localhost:9000/x?y=1', 'http://localhost:9000/x?y=1'],
    ['http://[::1]:9000/x', 'http://[::1]:9000/x'],
    ['https://127.0.0.1:3002/x', 'https://127.0.0.1:3002/x'],
  ])('accepts %s', (url, normalised) => {
    expect(checkEndpointUrl(url, local)).toEqual({ ok: true, url: normalised });
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
    const checked = checkEndpointUrl(url, local);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problem).toMatch(problem);
  });

  it('refuses any loopback name for an admin listener on every address', () => {
    const everywhere = { admin: { host: '0.0.0.0', port: 4000 }, allowPrivate: true };
    expect(checkEndpointUrl('http://127.0.0.2:4000/x', everywhere).ok).toBe(false);
    expect(checkEndpointUrl('https://admin.internal:4000/x', { admin: { host: 'admin.internal', port: 4000 }, allowPrivate: true }).ok).toBe(false);
    expect(checkEndpointUrl('http://127.0.0.1:4001/x', everywhere).ok).toBe(true);
  });

  const METADATA_AND_LINK_LOCAL = [
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.1.2/x',
    'https://[fe80::1]/x',
    'https://[fd00:ec2::254]/latest/meta-data/',
    'https://100.100.100.200/latest/meta-data/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata.google.internal./computeMetadata/v1/',
    'https://[::ffff:169.254.169.254]/x',
    'https://[::ffff:a9fe:a9fe]/x',
    'https://2852039166/x', // 169.254.169.254 as one number: URL parsing writes it back as the address
    'https://224.0.0.1/x',
  ];
  it.each(METADATA_AND_LINK_LOCAL)('always refuses the link-local or metadata target %s, whatever WEBHOOK_ALLOW_PRIVATE says', (url) => {
    for (const rules of [strict, local]) {
      const checked = checkEndpointUrl(url, rules);
      expect(checked.ok, url).toBe(false);
      expect(!checked.ok && checked.problem).toMatch(/link-local, cloud metadata or non-unicast address/);
    }
  });

  const PRIVATE = [
    ['http://127.0.0.1:8080/hooks', 'http://127.0.0.1:8080/hooks'],
    ['http://localhost:9000/x', 'http://localhost:9000/x'],
    ['http://[::1]:9000/x', 'http://[::1]:9000/x'],
    ['https://127.0.0.1:5432/x', 'https://127.0.0.1:5432/x'],
    ['https://10.0.0.5/hooks', 'https://10.0.0.5/hooks'],
    ['https://172.16.0.1/hooks', 'https://172.16.0.1/hooks'],
    ['https://172.31.255.254/hooks', 'https://172.31.255.254/hooks'],
    ['https://192.168.1.10/hooks', 'https://192.168.1.10/hooks'],
    ['https://100.64.0.1/hooks', 'https://100.64.0.1/hooks'],
    ['https://[fc00::1]/hooks', 'https://[fc00::1]/hooks'],
    ['https://[fd12:3456::1]/hooks', 'https://[fd12:3456::1]/hooks'],
    ['https://[::ffff:10.0.0.1]/hooks', 'https://[::ffff:a00:1]/hooks'],
    ['https://0.0.0.0/hooks', 'https://0.0.0.0/hooks'],
    ['https://[::]/hooks', 'https://[::]/hooks'],
    ['https://0x7f.1/hooks', 'https://127.0.0.1/hooks'],
  ] as const;
  it.each(PRIVATE)('refuses the loopback or private target %s unless WEBHOOK_ALLOW_PRIVATE=true', (url, normalised) => {
    const checked = checkEndpointUrl(url, strict);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.problem).toMatch(/loopback or private network address \(allowed only with WEBHOOK_ALLOW_PRIVATE=true\)/);
    expect(checkEndpointUrl(url, local)).toEqual({ ok: true, url: normalised });
  });

  it.each(['https://shop.example/hooks', 'https://8.8.8.8/hooks', 'https://172.32.0.1/hooks', 'https://[2606:4700::1]/hooks', 'https://100.128.0.1/hooks'])('accepts the public target %s without the setting', (url) => {
    expect(checkEndpointUrl(url, strict)).toEqual({ ok: true, url });
  });
});

describe('event types', () => {
  it('defaults to every type, and refuses unknown or empty lists', () => {
    expect(parseEventTypes(undefined)).toEqual([
      'verification.succeeded',
      'payment_request.paid',
      'payment_request.expired',
      'payment_request.late_transfer',
      'payment_request.slip_unconfirmed',
      'verification.unconfirmed',
      'account.credits_low',
    ]);
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
