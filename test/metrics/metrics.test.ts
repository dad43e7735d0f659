// GET /metrics on the admin listener of one real slipgate process, after
// real traffic through the public route: every count matches what was sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { VERIFICATION_OUTCOMES } from '../../src/metrics/outcomes.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/child.js';
import { get, scrape } from './scrape.js';

const UPSTREAMS = JSON.stringify([
  { name: 'bank-a', provider: 'sandbox', weight: 1 },
  { name: 'bank-b', provider: 'sandbox', weight: 1, enabled: false },
]);

describe('/metrics, one process', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ upstream: null, env: { UPSTREAMS, UPSTREAM_TIMEOUT_MS: '500', HOLD_STALE_MS: '1000' } });
  });
  afterAll(() => app?.stop());

  it('counts each verification outcome, bank request and breaker state as sent', async () => {
    const { accountId, apiKey } = await app.account(20);
    const broke = await app.account(0);
    const gone = await app.account(5);
    await app.accounts.deleteAccount(gone.accountId);

    const statuses: number[] = [];
    const send = async (key: string | undefined, qrcode: unknown) => {
      const res = key === undefined ? await app.post({ qrcode }) : await app.verify(key, qrcode);
      statuses.push(res.status);
      return res.body;
    };
    for (let i = 0; i < 3; i++) expect((await send(apiKey, sandboxQr())).status).toBe('success');
    for (let i = 0; i < 2; i++) expect((await send(apiKey, sandboxQr({ outcome: 'not-found' }))).message).toMatch(/^slip not found/);
    expect((await send(apiKey, 'not a slip')).message).toMatch(/^invalid slip QR code/);
    expect((await send(undefined, sandboxQr())).code).toBe(1020);
    for (let i = 0; i < 2; i++) expect((await send(generateApiKey().key, sandboxQr())).code).toBe(1021);
    expect((await send(gone.apiKey, sandboxQr())).code).toBe(1022);
    expect((await send(broke.apiKey, sandboxQr())).code).toBe(1023);
    expect((await app.post('{"qrcode":', { 'x-api-key': apiKey })).status).toBe(400);
    expect((await app.post('x', { 'x-api-key': apiKey, 'content-type': 'text/plain' })).status).toBe(415);
    // Five bank errors in a row open bank-a's breaker; the next one finds no domain.
    for (let i = 0; i < 5; i++) expect((await send(apiKey, sandboxQr({ outcome: 'error' }))).message).toMatch(/^verification service error/);
    expect((await send(apiKey, sandboxQr())).message).toBe('verification service unavailable');
    // Not a verification: a wrong method is not counted.
    expect((await fetch(`${app.publicUrl}/api/v1/verify`)).status).toBe(405);

    const m = await scrape(app.adminUrl);
    const outcome = (name: string, code = '') => m.value('slipgate_verifications_total', { outcome: name, code });
    expect(outcome('success')).toBe(3);
    expect(outcome('slip_not_found')).toBe(2);
    expect(outcome('invalid_qr')).toBe(1);
    expect(outcome('upstream_error')).toBe(5);
    expect(outcome('upstream_unavailable')).toBe(1);
    expect(outcome('missing_api_key', '1020')).toBe(1);
    expect(outcome('invalid_api_key', '1021')).toBe(2);
    expect(outcome('user_not_found', '1022')).toBe(1);
    expect(outcome('insufficient_fund', '1023')).toBe(1);
    expect(outcome('bad_request')).toBe(2);
    expect(m.sum('slipgate_verifications_total')).toBe(statuses.length + 2);

    // The latency histogram saw every answer once, by result.
    const count = (result: string) => m.value('slipgate_verification_duration_seconds_count', { result });
    expect(count('success')).toBe(3);
    expect(count('failure')).toBe(2 + 1 + 5 + 1);
    expect(count('refused')).toBe(1 + 2 + 1 + 1 + 2);
    expect(m.value('slipgate_verification_duration_seconds_bucket', { result: 'success', le: '+Inf' })).toBe(3);

    // Bank requests: the unavailable one never reached a domain.
    const bank = (outcome: string) => m.value('slipgate_bank_requests_total', { domain: 'bank-a', outcome });
    expect(bank('success')).toBe(3);
    expect(bank('slip_not_found')).toBe(2);
    expect(bank('upstream_error')).toBe(5);
    expect(m.sum('slipgate_bank_requests_total', { domain: 'bank-b' })).toBe(0);
    expect(m.value('slipgate_bank_request_duration_seconds_count', { domain: 'bank-a', result: 'success' })).toBe(3);
    expect(m.value('slipgate_bank_request_duration_seconds_count', { domain: 'bank-a', result: 'failure' })).toBe(7);
    expect(m.value('slipgate_bank_breaker_state', { domain: 'bank-a', state: 'open' })).toBe(1);
    expect(m.value('slipgate_bank_breaker_state', { domain: 'bank-a', state: 'closed' })).toBe(0);
    expect(m.value('slipgate_bank_breaker_state', { domain: 'bank-b', state: 'closed' })).toBe(1);

    // Store operations, timed by name: one settle per success.
    expect(m.value('slipgate_store_operation_duration_seconds_count', { operation: 'settleHold', result: 'ok' })).toBe(3);
    expect(m.value('slipgate_credits_held')).toBe(0);
    expect(m.value('slipgate_processes')).toBe(1);
    // The default process metrics.
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds', 'process_cpu_seconds_total']) {
      expect(m.types.has(name), name).toBe(true);
    }

    // No label value is an id, key or QR: each is one of a small known set.
    const values = new Set(m.samples.flatMap((s) => Object.values(s.labels)));
    for (const value of values) expect(value).not.toMatch(/^(acc|slip|key|req|vt|adm|sgadm)_[A-Za-z0-9]{8,}|SBX\d|127\.0\.0\.1/);
    expect(values.size).toBeLessThan(120);
    const outcomes = m.samples.filter((s) => s.name === 'slipgate_verifications_total').map((s) => s.labels.outcome);
    for (const o of outcomes) expect(VERIFICATION_OUTCOMES).toContain(o);
    expect(m.text).not.toContain(accountId);
    expect(m.text).not.toContain(apiKey);
  });

  it('counts a reused idempotency key as the caller\'s conflict, not a store error', async () => {
    const { accountId } = await app.account(0);
    const before = await scrape(app.adminUrl);
    const ledger = (result: string, m = before) => m.value('slipgate_store_operation_duration_seconds_count', { operation: 'applyLedgerEntry', result });
    await app.accounts.topUp({ accountId, credits: 5, reason: 'invoice 1', actor: 'test', idempotencyKey: 'metrics-inv-1' });
    await expect(app.accounts.topUp({ accountId, credits: 7, reason: 'invoice 1', actor: 'test', idempotencyKey: 'metrics-inv-1' })).rejects.toThrow();
    const after = await scrape(app.adminUrl);
    expect(ledger('ok', after) - ledger('ok')).toBe(1);
    expect(ledger('conflict', after) - ledger('conflict')).toBe(1);
    expect(ledger('error', after) - ledger('error')).toBe(0);
  });

  it('reports a stale hold recovered (released) and stays off the public port', async () => {
    const { accountId } = await app.account(3);
    const [key] = await app.store.listApiKeys(accountId);
    const before = (await scrape(app.adminUrl)).value('slipgate_hold_recoveries_total', { result: 'released' });
    // A hold left by a process that died an hour ago.
    expect(await app.store.holdCredit({ id: 'vt_stale_hold_1', accountId, keyId: key!.id, createdAt: new Date(Date.now() - 3_600_000) })).toMatchObject({ status: 'held' });
    await eventually(async () => (await scrape(app.adminUrl)).value('slipgate_hold_recoveries_total', { result: 'released' }) === before + 1);
    expect((await app.store.getAccount(accountId))!.credits).toBe(3);

    const onPublic = await get(`${app.publicUrl}/metrics`);
    expect(onPublic.status).toBe(404);
    const head = await get(`${app.adminUrl}/metrics`);
    expect(head.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});

describe('/metrics: refusals, in-flight holds and METRICS_TOKEN', () => {
  const TOKEN = 'metrics-token-0123456789';
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({
      env: {
        MAX_INFLIGHT_PER_ACCOUNT: '1',
        RATE_LIMIT_PER_KEY_PER_MIN: '2',
        RATE_LIMIT_PER_IP_PER_MIN: '5',
        UPSTREAM_TIMEOUT_MS: '1000',
        METRICS_TOKEN: TOKEN,
      },
    });
  });
  afterAll(() => app?.stop());

  const auth = { authorization: `Bearer ${TOKEN}` };

  it('counts 429s by limit and shows the credit held by a verification in flight', async () => {
    const { accountId, apiKey } = await app.account(5);
    // The sandbox answers this slip only when the deadline aborts it: its hold stays open until then.
    const slow = app.verify(apiKey, sandboxQr({ outcome: 'timeout' }));
    await eventually(async () => (await app.store.getAccount(accountId))!.held === 1);
    const during = await scrape(app.adminUrl, auth);
    expect(during.value('slipgate_credits_held')).toBe(1);
    expect(during.value('slipgate_oldest_hold_age_seconds')).toBeGreaterThan(0);

    expect((await app.verify(apiKey, sandboxQr())).status).toBe(429); // in-flight cap
    expect((await app.verify(apiKey, sandboxQr())).status).toBe(429); // third request of this key this minute
    expect((await app.post({ qrcode: sandboxQr() })).body.code).toBe(1020);
    expect((await app.post({ qrcode: sandboxQr() })).body.code).toBe(1020);
    expect((await app.post({ qrcode: sandboxQr() })).status).toBe(429); // sixth request from this address
    expect((await slow).body.message).toBe('verification service timed out');

    const m = await scrape(app.adminUrl, auth);
    expect(m.value('slipgate_requests_refused_total', { reason: 'inflight' })).toBe(1);
    expect(m.value('slipgate_requests_refused_total', { reason: 'key_rate_limit' })).toBe(1);
    expect(m.value('slipgate_requests_refused_total', { reason: 'ip_rate_limit' })).toBe(1);
    expect(m.value('slipgate_verifications_total', { outcome: 'busy', code: '' })).toBe(1);
    expect(m.value('slipgate_verifications_total', { outcome: 'rate_limited', code: '' })).toBe(2);
    expect(m.value('slipgate_verifications_total', { outcome: 'missing_api_key', code: '1020' })).toBe(2);
    expect(m.value('slipgate_verifications_total', { outcome: 'upstream_timeout', code: '' })).toBe(1);
    expect(m.value('slipgate_credits_held')).toBe(0);
  });

  it('asks for the METRICS_TOKEN and accepts only it', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const res = await get(`${app.adminUrl}/metrics`, headers);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(res.body)).toEqual({ status: 'error', message: 'metrics need the METRICS_TOKEN as a Bearer token' });
    }
    const ok = await get(`${app.adminUrl}/metrics`, auth);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('# TYPE slipgate_verifications_total counter');
    // The admin listener's other routes are unaffected.
    expect((await get(`${app.adminUrl}/healthz`)).status).toBe(200);
  });
});
