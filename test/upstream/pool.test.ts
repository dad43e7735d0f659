// The pool over real fake banks: weighted choice, failover on connection
// failures, circuit breakers, health and reload.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { buildUpstream } from '../../src/upstream/build.js';
import type { UpstreamConfig } from '../../src/upstream/config.js';
import { UpstreamPool, type UpstreamPoolOptions } from '../../src/upstream/pool.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { sandboxTransRef } from '../../src/upstream/sandbox/transaction.js';
import type { SlipQuery, UpstreamResult } from '../../src/domain/ports/upstream.js';
import { eventually } from '../helpers/child.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb } from '../fakes/scb-server.js';
import { withQr } from '../helpers/slip-query.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function kbank(): Promise<Awaited<ReturnType<typeof startFakeKbank>>> {
  const bank = await startFakeKbank();
  cleanups.push(() => bank.close());
  return bank;
}
async function scb(): Promise<Awaited<ReturnType<typeof startFakeScb>>> {
  const bank = await startFakeScb();
  cleanups.push(() => bank.close());
  return bank;
}

function pool(configs: UpstreamConfig[], opts: Partial<Omit<UpstreamPoolOptions, 'createAdapter'>> = {}): UpstreamPool {
  const built = buildUpstream(configs, { sandbox: (c) => new SandboxUpstream(c.name), ...opts });
  cleanups.push(() => built.close());
  return built;
}

/**
 * Uniform over [0, 1) like Math.random, but a low-discrepancy sequence
 * (golden-ratio steps): no sampling noise, so a spread assertion tests the
 * weighting itself and the test is deterministic.
 */
function evenlySpread(): () => number {
  let x = 0.5;
  return () => {
    x = (x + 0.6180339887498949) % 1;
    return x;
  };
}

/** Always picks the first eligible domain in configuration order. */
const first = () => 0;

let n = 0;
const query = (sendingBank = '004', transRef = `POOL${++n}T${Date.now()}`): SlipQuery => withQr({ sendingBank, transRef, requestId: `req_${n}` });
const budget = () => AbortSignal.timeout(5_000);

function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  return {
    lines,
    error: (obj: object, msg: string) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
}

describe('UpstreamPool', () => {
  it('spreads requests over domains by weight', async () => {
    const banks = [await kbank(), await scb(), await kbank()];
    const weights = [1, 2, 3];
    const configs = banks.map((b, i) => ({ ...(b.config as (name: string) => UpstreamConfig)(`d${i}`), weight: weights[i]! }));
    const upstream = pool(configs, { random: evenlySpread() });

    const total = 1_000;
    for (let sent = 0; sent < total; sent += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => upstream.verify(query(), budget())));
      expect(batch.every((r) => r.ok)).toBe(true);
    }
    banks.forEach((bank, i) => {
      const expected = (total * weights[i]!) / 6;
      expect(bank.calls.verify).toBeGreaterThanOrEqual(expected * 0.9);
      expect(bank.calls.verify).toBeLessThanOrEqual(expected * 1.1);
    });
    expect(upstream.health().map((h) => h.requests)).toEqual(banks.map((b) => b.calls.verify));
  });

  it('answers the same slip data whichever provider answered', async () => {
    const k = await kbank();
    const s = await scb();
    const q = query('004', 'PARITY0001');
    const viaKbank = await pool([k.config('k')]).verify(q, budget());
    const viaScb = await pool([s.config('s')]).verify(q, budget());
    if (!viaKbank.ok || !viaScb.ok) throw new Error('both should succeed');
    expect(viaKbank.upstream).toBe('k');
    expect(viaScb.upstream).toBe('s');
    expect(typeof viaKbank.slip.rawData.amount).toBe('number');
    expect(typeof viaScb.slip.rawData.amount).toBe('string');
    const { rawData: _k, ...fromKbank } = viaKbank.slip;
    const { rawData: _s, ...fromScb } = viaScb.slip;
    expect(fromKbank).toEqual(fromScb);
  });

  it('tries one other domain when the chosen one refuses connections', async () => {
    const dead = await kbank();
    const alive = await scb();
    await dead.refuseConnections();
    const logger = recordingLogger();
    const upstream = pool([dead.config('dead'), alive.config('alive')], { random: first, logger });

    const q = query();
    const result = await upstream.verify(q, budget());
    expect(result).toMatchObject({ ok: true, upstream: 'alive' });
    expect(alive.calls.verify).toBe(1);
    const [deadHealth] = upstream.health();
    expect(deadHealth).toMatchObject({ name: 'dead', requests: 1, failures: 1, failuresByKind: { upstream_unavailable: 1 } });
    expect(logger.lines).toContainEqual({
      level: 'warn',
      obj: expect.objectContaining({ upstream: 'dead', requestId: q.requestId, kind: 'upstream_unavailable' }),
      msg: 'upstream verification failed',
    });
  });

  it('tries only one other domain, and answers unavailable when that fails too', async () => {
    const banks = [await kbank(), await kbank(), await kbank()];
    for (const bank of banks) await bank.refuseConnections();
    const upstream = pool(banks.map((b, i) => b.config(`d${i}`)), { random: first });
    const result = await upstream.verify(query(), budget());
    expect(result).toEqual({ ok: false, kind: 'upstream_unavailable', message: 'verification service unavailable', upstream: 'd1' });
    expect(upstream.health().map((h) => h.requests)).toEqual([1, 1, 0]);
  });

  it('does not ask another domain after a bank answered with an error', async () => {
    const failing = await kbank();
    const alive = await scb();
    failing.setBehavior({ httpStatus: 502 });
    const upstream = pool([failing.config('failing'), alive.config('alive')], { random: first });
    const result = await upstream.verify(query(), budget());
    expect(result).toEqual({ ok: false, kind: 'upstream_error', message: 'verification service error: bank answered HTTP 502', upstream: 'failing' });
    expect(alive.calls.verify).toBe(0);
  });

  it('skips a dead domain once its breaker opens and probes it again after the cooldown', async () => {
    const sick = await kbank();
    const alive = await scb();
    sick.setBehavior({ httpStatus: 503 });
    let now = 0;
    const logger = recordingLogger();
    const upstream = pool([sick.config('sick'), alive.config('alive')], { random: first, now: () => now, breakerCooldownMs: 30_000, logger });

    for (let i = 0; i < 5; i++) expect(await upstream.verify(query(), budget())).toMatchObject({ ok: false, upstream: 'sick' });
    expect(upstream.health()[0]).toMatchObject({ breaker: 'open', consecutiveFailures: 5, failuresByKind: { upstream_error: 5 } });
    expect(logger.lines.some((l) => l.msg === 'upstream circuit breaker opened' && l.obj.upstream === 'sick')).toBe(true);

    for (let i = 0; i < 3; i++) expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'alive' });
    expect(sick.calls.verify).toBe(5);

    // Cooldown over, still sick: one probe fails and the breaker opens again.
    now += 30_000;
    expect(upstream.health()[0]!.breaker).toBe('half_open');
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: false, upstream: 'sick' });
    expect(upstream.health()[0]!.breaker).toBe('open');
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'alive' });

    // Cooldown over, healed: the probe succeeds and the domain is back.
    sick.setBehavior({ httpStatus: null });
    now += 30_000;
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'sick' });
    expect(upstream.health()[0]).toMatchObject({ breaker: 'closed', consecutiveFailures: 0 });
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'sick' });
    expect(logger.lines.some((l) => l.msg === 'upstream circuit breaker closed')).toBe(true);
  });

  it('lets a single probe through while half-open', async () => {
    const slow = await kbank();
    let now = 0;
    const upstream = pool([slow.config('slow')], { now: () => now, breakerThreshold: 1, breakerCooldownMs: 1_000 });
    slow.setBehavior({ httpStatus: 500 });
    await upstream.verify(query(), budget());
    expect(upstream.health()[0]!.breaker).toBe('open');

    now += 1_000;
    slow.setBehavior({ httpStatus: null, latencyMs: 200 });
    const probe = upstream.verify(query(), budget());
    const second = await upstream.verify(query(), budget());
    expect(second).toEqual({ ok: false, kind: 'upstream_unavailable', message: 'verification service unavailable', upstream: null });
    expect(await probe).toMatchObject({ ok: true });
    expect(upstream.health()[0]!.breaker).toBe('closed');
  });

  it('does not count slips that are not found against a domain', async () => {
    const bank = await kbank();
    bank.setBehavior({ answer: 'not_found' });
    const upstream = pool([bank.config('k')], { breakerThreshold: 2 });
    for (let i = 0; i < 4; i++) expect(await upstream.verify(query(), budget())).toMatchObject({ kind: 'slip_not_found' });
    expect(upstream.health()[0]).toMatchObject({ breaker: 'closed', consecutiveFailures: 0, failures: 4, failuresByKind: { slip_not_found: 4 } });
  });

  it('counts timeouts against the domain and hangs up on the bank at the deadline', async () => {
    const slow = await scb();
    const upstream = pool([slow.config('slow')]);
    await upstream.verify(query('014'), budget());
    slow.setBehavior({ latencyMs: 60_000 });
    const result = await upstream.verify(query('014'), AbortSignal.timeout(300));
    expect(result).toEqual({ ok: false, kind: 'upstream_timeout', message: 'verification service timed out', upstream: 'slow' });
    expect(upstream.health()[0]).toMatchObject({ requests: 2, failuresByKind: { upstream_timeout: 1 }, consecutiveFailures: 1 });
    // The bank's record: the pool left before the bank answered, so it did not wait for it.
    await eventually(async () => slow.exchanges.length === 3);
    expect(slow.exchanges.at(-1)).toEqual({ call: 'verify', outcome: 'abandoned' });
  });

  it('never sends to a disabled domain', async () => {
    const off = await kbank();
    const on = await kbank();
    const upstream = pool([off.config('off', { enabled: false }), on.config('on')], { random: first });
    for (let i = 0; i < 5; i++) await upstream.verify(query(), budget());
    expect(off.calls.verify).toBe(0);
    expect(upstream.health().map((h) => [h.name, h.enabled, h.requests])).toEqual([
      ['off', false, 0],
      ['on', true, 5],
    ]);
  });

  it('reports latency percentiles per domain', async () => {
    const bank = await kbank();
    // The test's own clock: it moves only while the bank holds a request.
    let clock = 1_000;
    const upstream = pool([bank.config('k')], { monotonic: () => clock });
    expect(upstream.health()[0]).toMatchObject({ p50Ms: null, p95Ms: null });
    for (const latency of [24, 20, 22, 21, 23]) {
      const atBank = bank.holdNextVerify();
      const call = upstream.verify(query(), budget());
      await atBank.arrived;
      clock += latency;
      atBank.release();
      expect(await call).toMatchObject({ ok: true });
    }
    // Nearest rank over 20..24 ms.
    expect(upstream.health()[0]).toMatchObject({ p50Ms: 22, p95Ms: 24 });
  });

  it('names sandbox results after the configured domain', async () => {
    const upstream = pool([{ name: 'practice', provider: 'sandbox', weight: 1, enabled: true }]);
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'practice' });
    const failed = await upstream.verify(query('004', sandboxTransRef(100, 'error', 'x')), budget());
    expect(failed).toMatchObject({ ok: false, kind: 'upstream_error', upstream: 'practice' });
  });

  it('never rejects, even when an adapter does', async () => {
    const upstream = new UpstreamPool([{ name: 'broken', provider: 'sandbox', weight: 1, enabled: true }], {
      createAdapter: () => ({ name: 'broken', verify: () => Promise.reject(new Error('bug')) }),
    });
    const result: UpstreamResult = await upstream.verify(query(), budget());
    expect(result).toEqual({ ok: false, kind: 'upstream_error', message: 'verification service error', upstream: 'broken' });
  });

  it('blames no domain when the deadline passed before the call', async () => {
    const bank = await kbank();
    const upstream = pool([bank.config('k')]);
    const result = await upstream.verify(query(), AbortSignal.abort());
    expect(result).toEqual({ ok: false, kind: 'upstream_timeout', message: 'verification service timed out', upstream: null });
    expect(upstream.health()[0]!.requests).toBe(0);
  });

  it('takes the process’s pino logger as is', async () => {
    const bank = await kbank();
    await bank.refuseConnections();
    const upstream = pool([bank.config('k')], { logger: createLogger('silent') });
    expect(await upstream.verify(query(), budget())).toMatchObject({ kind: 'upstream_unavailable', upstream: 'k' });
  });

  describe('reload', () => {
    it('swaps the domain set, keeping unchanged domains with their token and health', async () => {
      const a = await kbank();
      const b = await scb();
      const c = await kbank();
      const upstream = pool([a.config('a'), b.config('b')], { random: first });
      await upstream.verify(query(), budget());
      expect(a.calls.token).toBe(1);

      const summary = upstream.reload([a.config('a', { weight: 1 }), c.config('c')]);
      expect(summary).toEqual({ added: ['c'], changed: [], removed: ['b'], unchanged: ['a'] });
      expect(upstream.health().map((h) => [h.name, h.requests])).toEqual([
        ['a', 1],
        ['c', 0],
      ]);
      await upstream.verify(query(), budget());
      expect(a.calls.token).toBe(1); // same adapter, cached token

      upstream.reload([a.config('a', { enabled: false }), c.config('c')]);
      expect(upstream.health()[0]).toMatchObject({ name: 'a', enabled: false, requests: 0 });
      await upstream.verify(query(), budget());
      expect(c.calls.verify).toBe(1);
    });

    it('lets requests under way on a removed domain finish', async () => {
      const old = await kbank();
      const next = await scb();
      const upstream = pool([old.config('old')]);
      await upstream.verify(query(), budget());
      const atOldBank = old.holdNextVerify();
      const inFlight = upstream.verify(query(), budget());
      await atOldBank.arrived;
      upstream.reload([next.config('next')]);
      atOldBank.release();
      expect(await inFlight).toMatchObject({ ok: true, upstream: 'old' });
      expect(await upstream.verify(query('014'), budget())).toMatchObject({ ok: true, upstream: 'next' });
    });

    it('keeps the current domains when the new set cannot be built', async () => {
      const a = await kbank();
      const upstream = pool([a.config('a')]);
      expect(() => upstream.reload([])).toThrow(/at least one domain/);
      expect(upstream.health().map((h) => h.name)).toEqual(['a']);
      expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'a' });
    });
  });
});

