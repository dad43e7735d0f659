// A flood of refused authentications (no key, unknown keys, a locked key
// from the wrong address) from one client address: past the brake's limit
// the address gets 429 and its requests are counted into one record per
// window instead of a durable record each, so N requests cost a bounded
// number of records; a merchant's valid key from another address verifies
// all along. With the default brake, as an operator gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { generateApiKey } from '../../src/domain/keys/api-key.js';
import { FailedAuthBrake } from '../../src/domain/keys/failed-auth-brake.js';
import { storeServices } from '../../src/compose-store.js';
import { newId } from '../../src/domain/keys/api-key.js';
import { VerificationService } from '../../src/domain/verify/service.js';
import { createLogger } from '../../src/log/log.js';
import { openStore } from '../../src/store/open.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { eventually } from '../helpers/child.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';

const FLOOD = 600;
const { AUTH_FAILURES_PER_IP_PER_MIN: LIMIT } = loadConfig({});

describe('a flood of refused authentications from one address', () => {
  const dir = tempDir('slipgate-flood-');
  const file = `${dir.path}/slipgate.db`;
  let app: TestApp;
  beforeAll(async () => {
    // Behind a proxy, as deployed: the client's address comes from X-Forwarded-For.
    // The 429s answered at once (tarpit.test.ts holds them): this test counts records, one request at a time.
    app = await startApp({ databaseUrl: `sqlite:${file}`, env: { TRUST_PROXY_HOPS: '1', AUTH_BRAKE_DELAY_MS: '0' } });
  });
  afterAll(async () => {
    await app?.stop();
    dir.remove();
  });

  const records = () => sqliteRows<{ kind: string; message: string; requestId: string }>(file, 'SELECT kind, message, request_id AS requestId FROM request_errors ORDER BY created_at, id');
  const from = (ip: string, apiKey: string | null) =>
    app.post({ qrcode: sandboxQr() }, { 'x-forwarded-for': ip, ...(apiKey === null ? {} : { 'x-api-key': apiKey }) });

  it('is braked on by default', () => {
    expect(LIMIT).toBeGreaterThan(0);
    expect(LIMIT).toBeLessThanOrEqual(60);
    expect(() => loadConfig({ AUTH_FAILURES_PER_IP_PER_MIN: '-1' })).toThrow(/AUTH_FAILURES_PER_IP_PER_MIN/);
    expect(loadConfig({ AUTH_FAILURES_PER_IP_PER_MIN: '0' }).AUTH_FAILURES_PER_IP_PER_MIN).toBe(0);
  });

  it(`${FLOOD} refused authentications from one address make at most LIMIT + 1 records a window, while a valid key from another address verifies`, { timeout: 120_000 }, async () => {
    const merchant = await app.account(FLOOD);
    const { accountId } = await app.account(1);
    const locked = await app.accounts.createApiKey(accountId, ['198.51.100.0/24']);
    const before = records().length;
    const startedAt = Date.now();

    const answers: { status: number; body: any; headers: Headers }[] = [];
    let verified = 0;
    for (let i = 0; i < FLOOD; i++) {
      // Every kind of refusal the brake counts: 1021, 1020, 1024.
      const key = i % 3 === 0 ? generateApiKey().key : i % 3 === 1 ? null : locked.secret;
      const [bad, good] = await Promise.all([from('203.0.113.66', key), i % 20 === 0 ? from('203.0.113.10', merchant.apiKey) : null]);
      answers.push(bad);
      if (good) {
        expect(good.status).toBe(200);
        expect(good.body.message).toBe('slip verified');
        verified++;
      }
    }
    // The first LIMIT are the contract's answers; the rest 429, nothing learnt from them.
    const refused = answers.slice(0, LIMIT).map((a) => a.body.code);
    expect(new Set(refused)).toEqual(new Set([1020, 1021, 1024]));
    const braked = answers.slice(LIMIT);
    // The window may turn during the run: then the contract's answers start again, at most LIMIT of them.
    const contract = braked.filter((a) => a.status !== 429);
    expect(contract.length).toBeLessThanOrEqual(LIMIT);
    const limited = braked.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(FLOOD - 2 * LIMIT);
    for (const a of limited) {
      expect(a.body).toStrictEqual({ status: 'error', message: 'too many failed authentications from this address; retry later' });
      const retryAfter = Number(a.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(a.headers.get('x-credits-remaining')).toBeNull();
    }
    expect(verified).toBe(FLOOD / 20);
    expect((await app.store.getAccount(merchant.accountId))!.usage).toBe(verified);
    // While braked the refusals are counted, not written: one by one, only the first LIMIT (per window).
    const during = records().slice(before);
    expect(during.filter((r) => r.kind !== 'auth_rate_limited').length).toBeLessThanOrEqual(2 * LIMIT);
    // A valid key from the braked address is served: it may be a merchant behind the same carrier NAT (nat-brake.test.ts).
    const valid = await from('203.0.113.66', merchant.apiKey);
    expect(valid.body.message).toBe('slip verified');

    // The counts reach the database when the window ends or, as here, when the server stops.
    await app.stop();
    const after = records().slice(before);
    const summaries = after.filter((r) => r.kind === 'auth_rate_limited');
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(2);
    const counted = summaries.reduce((sum, r) => sum + Number(/^(\d+) requests from 203\.0\.113\.66 /.exec(r.message)![1]), 0);
    // Every request answered 429 is in a summary, none is lost.
    expect(counted).toBe(limited.length);
    // The bound: per address and clock minute the run touched, LIMIT records one
    // by one and one summary (a run that starts late in a minute may record
    // some in that minute and LIMIT more in the next before it is braked).
    const windows = Math.floor(Date.now() / 60_000) - Math.floor(startedAt / 60_000) + 1;
    expect(summaries.length).toBeLessThanOrEqual(windows);
    expect(after.length - summaries.length).toBeLessThanOrEqual(windows * LIMIT);
    expect(after.length).toBeLessThan(FLOOD / 10);
    // The merchant's address was never braked and never summed up.
    expect(after.some((r) => r.message.includes('203.0.113.10'))).toBe(false);
  });
});

describe('FailedAuthBrake', () => {
  it('records the first N per window, brakes the address until its window ends, and sums the rest up once', () => {
    let now = 120_000; // the start of a window
    const brake = new FailedAuthBrake({ perWindow: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(brake.refuse('a', `r${i}`)).toBeNull();
      expect(brake.failed('a', `r${i}`)).toBe(true);
    }
    now += 15_000;
    expect(brake.refuse('a', 'r3')).toEqual({ retryAfterMs: 45_000 });
    // A request that passed the check before the limit was reached is counted, not recorded.
    expect(brake.failed('a', 'r5')).toBe(false);
    // An address that keeps flooding while braked…
    for (let i = 0; i < 3; i++) brake.failed('f', `f${i}`);
    for (let i = 0; i < 50; i++) expect(brake.refuse('f', `f${i + 3}`)).not.toBeNull();
    // Another address is untouched.
    expect(brake.refuse('b', 'r6')).toBeNull();
    expect(brake.failed('b', 'r6')).toBe(true);
    expect(brake.takeSummaries()).toEqual([]);

    now = 180_000;
    // …starts the next window braked (one record a window while it goes on); one that slowed down starts afresh.
    expect(brake.refuse('f', 'f53')).toEqual({ retryAfterMs: 60_000 });
    expect(brake.refuse('a', 'r7')).toBeNull();
    expect(brake.takeSummaries()).toEqual([
      { address: 'a', unrecorded: 2, requestId: 'r3', from: new Date(120_000), to: new Date(180_000) },
      { address: 'f', unrecorded: 50, requestId: 'f3', from: new Date(120_000), to: new Date(180_000) },
    ]);
    expect(brake.takeSummaries()).toEqual([]);
    now = 300_000; // a quiet window in between: nothing is carried over it
    expect(brake.refuse('f', 'f54')).toBeNull();
    expect(brake.takeSummaries()).toEqual([{ address: 'f', unrecorded: 1, requestId: 'f53', from: new Date(180_000), to: new Date(240_000) }]);

    // At shutdown the current window is summed up too, and the address stays braked.
    for (let i = 0; i < 4; i++) brake.failed('c', `c${i}`);
    expect(brake.takeSummaries(true)).toEqual([{ address: 'c', unrecorded: 1, requestId: 'c3', from: new Date(300_000), to: new Date(300_000) }]);
    expect(brake.refuse('c', 'c4')).not.toBeNull();
  });

  it('does nothing at 0', () => {
    const brake = new FailedAuthBrake({ perWindow: 0, windowMs: 60_000 });
    for (let i = 0; i < 100; i++) expect(brake.failed('a', 'r')).toBe(true);
    expect(brake.refuse('a', 'r')).toBeNull();
    expect(brake.takeSummaries(true)).toEqual([]);
  });

  it('writes each ended window\'s summary by itself, without waiting for a stop (a short window here)', async () => {
    const dir = tempDir('slipgate-brake-');
    const store = await openStore(`sqlite:${dir.path}/brake.db`);
    try {
      const verification = new VerificationService({
        store,
        keys: storeServices(store).keys,
        upstream: UpstreamPool.of(new SandboxUpstream()),
        timeoutMs: 2_000,
        logger: createLogger('silent'),
        newId: () => newId('req'),
        authBrake: new FailedAuthBrake({ perWindow: 2, windowMs: 300 }),
      });
      const refused = { recorded: 0, counted: 0 };
      for (let i = 0; i < 40; i++) {
        const out = await verification.verify({ apiKey: generateApiKey().key, readBody: () => Promise.reject(new Error('never read')), requestId: `r${i}`, clientIp: '192.0.2.7' });
        if (out.kind === 'throttled') refused.counted++;
        else refused.recorded++;
      }
      expect(refused.counted).toBeGreaterThan(0);
      const all = async () => (await store.listRequestErrors({ limit: 100 })).items;
      const summed = async () =>
        (await all()).filter((r) => r.kind === 'auth_rate_limited').reduce((n, r) => n + Number(/^(\d+) requests from 192\.0\.2\.7 /.exec(r.message)![1]), 0);
      // No stop, no drain: the timer at the window's end writes them.
      await eventually(async () => (await summed()) === refused.counted);
      expect((await all()).filter((r) => r.kind === 'invalid_api_key')).toHaveLength(refused.recorded);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
