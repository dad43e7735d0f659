// The pool's priorities and its domains that cannot serve, over real local
// slip-API servers (test/fixtures/quota-bank.ts): a lower priority serves
// only when every domain above it cannot, and a domain that refuses to serve
// anyone is skipped within the same verification and after it.
import { afterEach, describe, expect, it } from 'vitest';
import type { SlipQuery } from '../../src/domain/ports/upstream.js';
import type { UpstreamConfig } from '../../src/upstream/config.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { scheduleQuotaReadings } from '../../src/schedules/quota-readings.js';
import { UpstreamPool, type UpstreamPoolOptions } from '../../src/upstream/pool.js';
import { quotaBankAdapter, startQuotaBank, type QuotaBank } from '../fixtures/quota-bank.js';
import { eventually } from '../helpers/child.js';
import { withQr } from '../helpers/slip-query.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function bank(quota: number | null = null): Promise<QuotaBank> {
  const started = await startQuotaBank(quota);
  cleanups.push(() => started.close());
  return started;
}

function pool(configs: UpstreamConfig[], opts: Partial<Omit<UpstreamPoolOptions, 'createAdapter'>> = {}): UpstreamPool {
  const built = new UpstreamPool(configs, { createAdapter: quotaBankAdapter, ...opts });
  cleanups.push(() => built.close());
  return built;
}

/** Alternates between the first and the last of two equal weights. */
function alternating(): () => number {
  let i = 0;
  return () => (i++ % 2 === 0 ? 0 : 0.99);
}

function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const push = (level: string) => (obj: object, msg: string) => lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, error: push('error'), warn: push('warn'), info: push('info'), debug: push('debug') };
}

let n = 0;
const query = (): SlipQuery => withQr({ sendingBank: '004', transRef: `PRIO${++n}T${Date.now()}`, requestId: `req_${n}` });
const budget = () => AbortSignal.timeout(5_000);

describe('UpstreamPool priorities', () => {
  it('keeps the random choice by weight within the best priority and never asks a lower one while it serves', async () => {
    const [a, b, spare] = [await bank(), await bank(), await bank()];
    const upstream = pool([a.config('a'), b.config('b'), spare.config('spare', { priority: 2 })], { random: alternating() });
    for (let i = 0; i < 10; i++) expect((await upstream.verify(query(), budget())).ok).toBe(true);
    expect([a.calls.verify, b.calls.verify, spare.calls.verify]).toEqual([5, 5, 0]);
    expect(upstream.health().map((d) => [d.name, d.priority])).toEqual([
      ['a', 1],
      ['b', 1],
      ['spare', 2],
    ]);
  });

  it('serves from a lower priority when every domain above it is disabled or shut out by its breaker', async () => {
    const [down, off, spare] = [await bank(), await bank(), await bank()];
    await down.close();
    const upstream = pool([down.config('down'), off.config('off', { enabled: false }), spare.config('spare', { priority: 5 })], { breakerThreshold: 1 });
    const result = await upstream.verify(query(), budget());
    expect(result).toMatchObject({ ok: true, upstream: 'spare' });
    expect(upstream.health().find((d) => d.name === 'down')?.breaker).toBe('open');
    await upstream.verify(query(), budget());
    expect([off.calls.verify, spare.calls.verify]).toEqual([0, 2]);
  });
});

describe('UpstreamPool domains that cannot serve', () => {
  it('sends the same verification down the priorities to the first domain that serves, within one call', async () => {
    const [refused, empty, serving] = [await bank(), await bank(0), await bank()];
    refused.refuse = 'key refused';
    const logger = recordingLogger();
    const upstream = pool([refused.config('refused'), empty.config('empty', { priority: 2 }), serving.config('serving', { priority: 3 })], { logger });
    const result = await upstream.verify(query(), budget());
    expect(result).toMatchObject({ ok: true, upstream: 'serving' });
    expect([refused.calls.verify, empty.calls.verify, serving.calls.verify]).toEqual([1, 1, 1]);
    const warned = logger.lines.filter((l) => l.level === 'warn');
    expect(warned.map((l) => [l.obj.upstream, l.obj.reason])).toEqual([
      ['refused', 'key refused'],
      ['empty', 'quota used up'],
    ]);
    expect(warned[0]!.msg).toContain('cannot serve');

    // Skipped afterwards: no call to either, and no second line for the same state.
    for (let i = 0; i < 3; i++) expect((await upstream.verify(query(), budget())).ok).toBe(true);
    expect([refused.calls.verify, empty.calls.verify, serving.calls.verify]).toEqual([1, 1, 4]);
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(2);
    const health = upstream.health();
    expect(health.map((d) => [d.name, d.usable, d.unusableReason])).toEqual([
      ['refused', false, 'key refused'],
      ['empty', false, 'quota used up'],
      ['serving', true, null],
    ]);
  });

  it('does not open the breaker of a domain that cannot serve, and counts it as unavailable', async () => {
    const [empty, other] = [await bank(0), await bank()];
    const upstream = pool([empty.config('empty'), other.config('other', { priority: 2 })], { breakerThreshold: 1 });
    await upstream.verify(query(), budget());
    const health = upstream.health().find((d) => d.name === 'empty')!;
    expect(health).toMatchObject({ breaker: 'closed', consecutiveFailures: 0, usable: false });
    expect(health.failuresByKind.upstream_unavailable).toBe(1);
  });

  it('answers the free upstream error, without internal flags, when no usable domain is left', async () => {
    const [a, b] = [await bank(0), await bank()];
    b.refuse = 'IP not allowed';
    const upstream = pool([a.config('a'), b.config('b')]);
    const result = await upstream.verify(query(), budget());
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ kind: 'upstream_unavailable' });
    expect(Object.keys(result).sort()).toEqual(['kind', 'message', 'ok', 'upstream']);
    // Both skipped now: nobody is asked.
    expect(await upstream.verify(query(), budget())).toEqual({ ok: false, kind: 'upstream_unavailable', message: 'verification service unavailable', upstream: null });
    expect([a.calls.verify, b.calls.verify]).toEqual([1, 1]);
  });

  it('tries a skipped domain again once the retry time has passed', async () => {
    let now = 1_000_000;
    const [empty, spare] = [await bank(0), await bank()];
    const logger = recordingLogger();
    const upstream = pool([empty.config('empty'), spare.config('spare', { priority: 2 })], { now: () => now, exhaustedRetryMs: 60_000, logger });
    await upstream.verify(query(), budget());
    now += 59_999;
    await upstream.verify(query(), budget());
    expect(empty.calls.verify).toBe(1);
    now += 1;
    empty.quota = 10;
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'empty' });
    expect(upstream.health()[0]!.usable).toBe(true);
    expect(logger.lines.filter((l) => l.msg === 'upstream domain serves again').map((l) => l.obj.upstream)).toEqual(['empty']);
  });

  it('skips a domain whose answer reported no quota left, before it refuses anyone', async () => {
    const [last, spare] = [await bank(1), await bank()];
    last.quotaInAnswers = true;
    const upstream = pool([last.config('last'), spare.config('spare', { priority: 2 })]);
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'last' });
    expect(upstream.health()[0]).toMatchObject({ usable: false, quotaRemaining: 0 });
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'spare' });
    expect(last.calls.verifyWhileOut).toBe(0);
  });
});

describe('UpstreamPool quota readings', () => {
  it('reads each quota without spending a verification, skips a domain at 0 and uses it again above 0', async () => {
    const [monthly, spare] = [await bank(0), await bank()];
    const upstream = pool([monthly.config('monthly'), spare.config('spare', { priority: 2 })]);
    await upstream.readQuotas(budget());
    expect([monthly.calls.quota, monthly.calls.verify, spare.calls.quota]).toEqual([1, 0, 1]);
    expect(upstream.health()[0]).toMatchObject({ usable: false, quotaRemaining: 0, readsQuota: true });
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'spare' });
    expect(monthly.calls.verify).toBe(0);

    monthly.quota = 500;
    await upstream.readQuotas(budget());
    expect(upstream.health()[0]).toMatchObject({ usable: true, quotaRemaining: 500 });
    expect(await upstream.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'monthly' });
  });

  it('warns and tells its whenQuotaLow listeners once per crossing below UPSTREAM_QUOTA_LOW, not once per reading', async () => {
    const monthly = await bank(50);
    const logger = recordingLogger();
    const told: [string, number][] = [];
    const upstream = pool([monthly.config('monthly')], { logger, quotaLow: 100 });
    upstream.whenQuotaLow((domain, remaining) => told.push([domain, remaining]));
    await upstream.readQuotas(budget());
    monthly.quota = 40;
    await upstream.readQuotas(budget());
    expect(told).toEqual([['monthly', 50]]);
    monthly.quota = 1000;
    await upstream.readQuotas(budget());
    monthly.quota = 10;
    await upstream.readQuotas(budget());
    expect(told).toEqual([
      ['monthly', 50],
      ['monthly', 10],
    ]);
    expect(logger.lines.filter((l) => l.msg === 'upstream domain quota is low')).toHaveLength(2);
  });

  it('shows readings as Prometheus gauges of quota left and of usable domains', async () => {
    const [monthly, empty, bankDirect] = [await bank(250), await bank(0), await bank()];
    const upstream = pool([monthly.config('monthly'), empty.config('empty'), bankDirect.config('unlimited')]);
    await upstream.readQuotas(budget());
    const metrics = new Metrics();
    metrics.watch({ upstreamHealth: () => upstream.health(), listHolds: async () => [] });
    const text = await metrics.text();
    expect(text).toContain('slipgate_upstream_quota_remaining{domain="monthly"} 250');
    expect(text).toContain('slipgate_upstream_quota_remaining{domain="empty"} 0');
    expect(text).not.toContain('slipgate_upstream_quota_remaining{domain="unlimited"}');
    expect(text).toContain('slipgate_upstream_usable{domain="monthly"} 1');
    expect(text).toContain('slipgate_upstream_usable{domain="empty"} 0');
  });
});

describe('scheduleQuotaReadings', () => {
  it('reads every quota at start, and nothing more once stopped', async () => {
    const monthly = await bank(0);
    const upstream = pool([monthly.config('monthly')]);
    const schedule = scheduleQuotaReadings(upstream, { intervalMs: 3_600_000, timeoutMs: 5_000 });
    await eventually(async () => !upstream.health()[0]!.usable);
    await schedule.stop();
    expect(monthly.calls).toMatchObject({ quota: 1, verify: 0 });
  });
});
