// Abuse limits on the public route: per API key and per client IP (429 JSON
// with Retry-After, no charge), the spec's 1020 untouched for callers without
// a key, and the per-account cap on verifications in flight.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateApiKey, hashSecret } from '../../src/domain/keys/api-key.js';
import { perKeyLimit } from '../../src/http/rate-limit.js';
import { createLogger } from '../../src/log/log.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';

const MISSING = { status: 'error', code: 1020, message: 'api key is missing' };
const INVALID = { status: 'error', code: 1021, message: 'invalid api key' };

function expectLimited(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(/^too many /) });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('abuse limits', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });

  it('are off by default', () => {
    const config = loadConfig({});
    expect([config.RATE_LIMIT_PER_KEY_PER_MIN, config.RATE_LIMIT_PER_IP_PER_MIN, config.TRUST_PROXY_HOPS]).toEqual([0, 0, 0]);
    expect(() => loadConfig({ RATE_LIMIT_PER_KEY_PER_MIN: '-1' })).toThrow(/RATE_LIMIT_PER_KEY_PER_MIN/);
  });

  it('limits each API key on its own, charges nothing for a 429, and never hides 1020', async () => {
    app = await startApp({ env: { RATE_LIMIT_PER_KEY_PER_MIN: '3' } });
    const a = await app.account(10);
    const b = await app.account(10);
    for (let i = 0; i < 3; i++) expect((await app.verify(a.apiKey, sandboxQr())).body.status).toBe('success');
    expectLimited(await app.verify(a.apiKey, sandboxQr()));
    expect((await app.store.getAccount(a.accountId))!.credits).toBe(7);
    // Another key is counted separately.
    expect((await app.verify(b.apiKey, sandboxQr())).body.status).toBe('success');

    // No key: never counted per key, always the spec's answer.
    for (let i = 0; i < 8; i++) expect(await app.post({ qrcode: sandboxQr() })).toMatchObject({ status: 401, body: MISSING });
    for (let i = 0; i < 4; i++) expect(await app.post({ qrcode: sandboxQr() }, { 'x-api-key': '' })).toMatchObject({ status: 401, body: MISSING });

    // A wrong key is counted under its own hash: 1021 until its limit, then 429.
    const wrong = generateApiKey().key;
    for (let i = 0; i < 3; i++) expect(await app.verify(wrong, sandboxQr())).toMatchObject({ status: 401, body: INVALID });
    expectLimited(await app.verify(wrong, sandboxQr()));
  });

  it('keys its counters by the SHA-256 of the key, never the key itself', async () => {
    const seen: string[] = [];
    const probe = express();
    probe.use(perKeyLimit(5, createLogger('silent'))!, (req, res) => {
      seen.push((req as unknown as { rateLimit: { key: string } }).rateLimit.key);
      res.json({ ok: true });
    });
    const server = probe.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const key = generateApiKey().key;
      await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'x-api-key': key } });
      expect(seen).toEqual([hashSecret(key)]);
    } finally {
      server.close();
    }
  });

  it('limits each client IP across routes, keys or none', async () => {
    app = await startApp({ env: { RATE_LIMIT_PER_IP_PER_MIN: '4' } });
    const { apiKey } = await app.account(10);
    expect((await app.verify(apiKey, sandboxQr())).body.status).toBe('success');
    expect(await app.post({ qrcode: 'x' })).toMatchObject({ status: 401, body: MISSING });
    expect((await fetch(`${app.publicUrl}/elsewhere`)).status).toBe(404);
    expect((await app.verify(apiKey, 'not a slip')).body.status).toBe('error');
    expectLimited(await app.post({ qrcode: 'x' }));
    expectLimited(await app.verify(apiKey, sandboxQr()));
  });

  it('tells clients apart by X-Forwarded-For only behind a trusted proxy', async () => {
    app = await startApp({ env: { RATE_LIMIT_PER_IP_PER_MIN: '2', TRUST_PROXY_HOPS: '1' } });
    const from = (ip: string) => app!.post({ qrcode: 'x' }, { 'x-forwarded-for': ip });
    expect((await from('203.0.113.1')).status).toBe(401);
    expect((await from('203.0.113.1')).status).toBe(401);
    expectLimited(await from('203.0.113.1'));
    expect((await from('203.0.113.2')).status).toBe(401);
  });

  it('caps the verifications one account has in flight', async () => {
    app = await startApp({ upstream: new SandboxUpstream('sandbox', 1_500), env: { MAX_INFLIGHT_PER_ACCOUNT: '2' } });
    const busy = await app.account(10);
    const other = await app.account(10);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => app!.verify(busy.apiKey, sandboxQr())),
      app.verify(other.apiKey, sandboxQr()),
    ]);
    const mine = results.slice(0, 5);
    expect(mine.filter((r) => r.body.status === 'success')).toHaveLength(2);
    const refused = mine.filter((r) => r.status === 429);
    expect(refused).toHaveLength(3);
    for (const r of refused) expectLimited(r);
    expect(results[5]!.body.status).toBe('success');
    expect((await app.store.getAccount(busy.accountId))!.credits).toBe(8);
  });
});
