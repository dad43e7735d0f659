// Keep-alive sockets a bank closes while idle. A request sent on such a socket
// is reset before the bank answers; it goes once more on a new connection
// instead of surfacing as an unavailable bank. A request the bank began to
// answer is never sent twice, and a refused connection still fails over.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { buildUpstream } from '../../src/upstream/build.js';
import type { UpstreamConfig } from '../../src/upstream/config.js';
import type { UpstreamPool, UpstreamPoolOptions } from '../../src/upstream/pool.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import type { OAuthBankOptions } from '../../src/upstream/shared/oauth-bank-upstream.js';
import type { SlipQuery, UpstreamResult } from '../../src/domain/ports/upstream.js';
import type { FakeBank, FakeBankOptions, ReusedConnectionFault } from '../fakes/fake-bank.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb } from '../fakes/scb-server.js';
import { withQr } from '../helpers/slip-query.js';

type BankWithConfig = FakeBank & { config(name?: string, extra?: { idleSocketTimeoutMs?: number }): UpstreamConfig };

const PROVIDERS: { provider: 'kbank' | 'scb'; sendingBank: string; start: (opts?: FakeBankOptions) => Promise<BankWithConfig> }[] = [
  { provider: 'kbank', sendingBank: '004', start: startFakeKbank },
  { provider: 'scb', sendingBank: '014', start: startFakeScb },
];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let n = 0;
const budget = () => AbortSignal.timeout(5_000);
/** Always picks the first eligible domain. */
const first = () => 0;

describe.each(PROVIDERS)('$provider over keep-alive connections', ({ provider, sendingBank, start }) => {
  const query = (): SlipQuery => withQr({ sendingBank, transRef: `KA${++n}T${Date.now()}`, requestId: `req_ka_${n}` });

  async function bank(opts: FakeBankOptions = {}): Promise<BankWithConfig> {
    const started = await start(opts);
    cleanups.push(() => started.close());
    return started;
  }

  function pool(configs: UpstreamConfig[], opts: Partial<Omit<UpstreamPoolOptions, 'createAdapter'>> & { bankOptions?: OAuthBankOptions } = {}): UpstreamPool {
    const built = buildUpstream(configs, { sandbox: (c) => new SandboxUpstream(c.name), random: first, ...opts });
    cleanups.push(() => built.close());
    return built;
  }

  it('sends a request reset on a reused connection once more, on a new connection', async () => {
    const fake = await bank();
    const upstream = pool([fake.config(`${provider}-1`)]);
    // The token call opens the connection; the verify call reuses it and is reset.
    fake.faultReusedConnections('reset');

    const result = await upstream.verify(query(), budget());

    expect(result).toMatchObject({ ok: true, upstream: `${provider}-1` });
    expect(fake.traffic.faults).toBe(1);
    expect(fake.traffic.oneShot).toBe(1);
    expect(fake.traffic.connections).toBe(2);
    expect(fake.calls).toMatchObject({ token: 1, verify: 1 });
  });

  it('does the same for a token request', async () => {
    const fake = await bank();
    let clock = Date.now();
    const upstream = pool([fake.config(`${provider}-1`)], { bankOptions: { now: () => clock } });
    expect((await upstream.verify(query(), budget())).ok).toBe(true);
    // The cached token runs out, so the next call is a token request on the pooled connection.
    clock += 2 * 3600_000;
    fake.faultReusedConnections('reset');

    const result = await upstream.verify(query(), budget());

    expect(result.ok).toBe(true);
    expect(fake.traffic.faults).toBe(1);
    expect(fake.traffic.oneShot).toBe(1);
    expect(fake.calls).toMatchObject({ token: 2, verify: 2 });
  });

  it.each<[ReusedConnectionFault, Partial<UpstreamResult>]>([
    ['partial-head', { ok: false, kind: 'upstream_unavailable' }],
    ['partial-body', { ok: false, kind: 'upstream_error', message: 'verification service error: request failed (ECONNRESET)' }],
  ])('does not send again a request the bank began to answer (%s)', async (fault, expected) => {
    const fake = await bank();
    const upstream = pool([fake.config(`${provider}-1`)]);
    expect((await upstream.verify(query(), budget())).ok).toBe(true);
    const before = { ...fake.traffic };
    fake.faultReusedConnections(fault);

    const result = await upstream.verify(query(), budget());

    expect(result).toMatchObject(expected);
    expect(fake.traffic.faults).toBe(1);
    expect(fake.traffic.requests).toBe(before.requests + 1);
    expect(fake.traffic.connections).toBe(before.connections);
    expect(fake.traffic.oneShot).toBe(0);
  });

  it('does not send again a request the bank answered with HTTP 503', async () => {
    const fake = await bank();
    const upstream = pool([fake.config(`${provider}-1`)]);
    expect((await upstream.verify(query(), budget())).ok).toBe(true);
    fake.setBehavior({ httpStatus: 503 });

    const result = await upstream.verify(query(), budget());

    expect(result).toMatchObject({ ok: false, kind: 'upstream_error', message: 'verification service error: bank answered HTTP 503' });
    expect(fake.calls.verify).toBe(2);
    expect(fake.traffic).toMatchObject({ connections: 1, requests: 3, oneShot: 0 });
  });

  it('still treats a refused connection as unreachable: unavailable alone, failed over with a second domain', async () => {
    const dead = await bank();
    const alive = await bank();
    const single = pool([dead.config('dead')]);
    const pair = pool([dead.config('dead'), alive.config('alive')]);
    // Both pools hold an idle connection to `dead` when it goes away.
    expect((await single.verify(query(), budget())).ok).toBe(true);
    expect((await pair.verify(query(), budget())).ok).toBe(true);
    await dead.refuseConnections();

    expect(await single.verify(query(), budget())).toEqual({
      ok: false,
      kind: 'upstream_unavailable',
      message: 'verification service unavailable',
      upstream: 'dead',
    });
    expect(await pair.verify(query(), budget())).toMatchObject({ ok: true, upstream: 'alive' });
  });

  it('closes its idle pooled connections after idleSocketTimeoutMs', async () => {
    // The fake never closes idle connections within the test, so a close is slipgate's.
    const fake = await bank({ idleCloseMs: 600_000 });
    const upstream = pool([fake.config(`${provider}-1`, { idleSocketTimeoutMs: 100 })]);
    expect((await upstream.verify(query(), budget())).ok).toBe(true);
    expect(fake.traffic.connections).toBe(1);

    await fake.connectionsClosed(1);

    expect((await upstream.verify(query(), budget())).ok).toBe(true);
    expect(fake.traffic.connections).toBe(2);
    expect(fake.traffic.oneShot).toBe(0);
  });

  it('verifies every slip when the bank closes idle connections just as they are reused', async () => {
    const bankIdleMs = 80;
    const fake = await bank({ idleCloseMs: bankIdleMs });
    // Longer than the bank's, so slipgate keeps sockets the bank is about to close.
    const upstream = pool([fake.config(`${provider}-1`, { idleSocketTimeoutMs: 10_000 })]);

    const failures: UpstreamResult[] = [];
    let rounds = 0;
    // At least 40 rounds, and on (up to 60) until the race has been met at least once.
    while (rounds < 60 && (rounds < 40 || fake.traffic.oneShot === 0)) {
      const result = await upstream.verify(query(), budget());
      if (!result.ok) failures.push(result);
      // The stimulus, not synchronisation: pauses straddling the bank's idle timeout.
      await sleep(bankIdleMs - 6 + (rounds++ % 13));
    }

    expect(failures).toEqual([]);
    expect(fake.calls.verify).toBe(rounds);
    // The bank did close pooled connections just as they were reused, and each
    // such request went again on a connection of its own (Connection: close).
    expect(fake.traffic.oneShot).toBeGreaterThan(0);
  });
});
