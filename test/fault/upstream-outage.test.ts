// Upstream outage mid-load: every bank domain goes down (connections
// refused, then hanging, then answering 503) and comes back, while callers
// keep posting. Each request is answered within the budget, every failure is
// the spec's free HTTP 200 error, no credit stays held, and doctor is clean.
import { afterAll, describe, expect } from 'vitest';
import { UPSTREAM_MESSAGES } from '../../src/domain/errors.js';
import { buildUpstream } from '../../src/upstream/build.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { SandboxUpstream } from '../../src/upstream/sandbox/sandbox-upstream.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runDoctor } from '../helpers/doctor.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { startLoad, untilAnswersIn, untilSuccessIn, type Answer } from '../helpers/load.js';
import { startFakeKbank } from '../fakes/kbank-server.js';
import { startFakeScb } from '../fakes/scb-server.js';

const BUDGET_MS = 1_000;
/** Generous on purpose (shared CI cores): what must not happen is waiting for the bank's 30 s. */
const DEADLINE_MS = BUDGET_MS + 5_000;
const CREDITS = 100_000;
const FAILURE_MESSAGES = Object.values(UPSTREAM_MESSAGES);
/** The spec's free failure: HTTP 200 with status "error". */
const freeFailure = (a: Answer) => a.status === 200 && a.body?.status === 'error';

describe.each(testEngines())('upstream outage under load on %s', (engine) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await engine.dispose();
  });

  // Concurrent callers on one account: see concurrencyCase().
  concurrencyCase(engine)('answers every request in budget, charges only successes and leaves no hold', { timeout: 90_000 }, async () => {
    const kbank = await startFakeKbank({ behavior: { latencyMs: 5 } });
    const scb = await startFakeScb({ behavior: { latencyMs: 5 } });
    cleanup.push(() => kbank.close(), () => scb.close());
    // A short breaker cooldown so recovery is seen within the test.
    const upstream = buildUpstream([kbank.config('kbank-1'), scb.config('scb-1')], { sandbox: () => new SandboxUpstream(), breakerCooldownMs: 200 });
    const databaseUrl = await engine.databaseUrl();
    const app: TestApp = await startApp({ upstream, databaseUrl, env: { UPSTREAM_TIMEOUT_MS: String(BUDGET_MS) } });
    cleanup.push(() => app.stop());
    const { accountId, apiKey } = await app.account(CREDITS);

    const load = startLoad({ publicUrl: app.publicUrl, apiKey, qrcode: () => sandboxQr(), workers: 5, deadlineMs: DEADLINE_MS });
    const phase = (name: string) => (load.phase = name);
    const banks = [kbank, scb];

    phase('up');
    await untilSuccessIn(load, 'up');
    phase('refused');
    await Promise.all(banks.map((b) => b.refuseConnections()));
    await untilAnswersIn(load, 'refused', 10, freeFailure);
    phase('back-after-refused');
    await Promise.all(banks.map((b) => b.acceptConnections()));
    await untilSuccessIn(load, 'back-after-refused');

    phase('hanging');
    for (const b of banks) b.setBehavior({ latencyMs: 30_000 });
    await untilAnswersIn(load, 'hanging', 5, (a) => a.body?.message === UPSTREAM_MESSAGES.upstream_timeout, DEADLINE_MS * 2);
    phase('back-after-hanging');
    for (const b of banks) b.setBehavior({ latencyMs: 5 });
    await untilSuccessIn(load, 'back-after-hanging');

    phase('http-503');
    for (const b of banks) b.setBehavior({ httpStatus: 503 });
    await untilAnswersIn(load, 'http-503', 10, freeFailure);
    phase('back-after-503');
    for (const b of banks) b.setBehavior({ httpStatus: null });
    await untilSuccessIn(load, 'back-after-503');
    const answers = await load.stop();

    // Every request got a well-formed answer before its deadline.
    expect(answers.filter((a) => a.problem)).toEqual([]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      if (a.body.status === 'success') continue;
      expect(a.body).toEqual({ status: 'error', message: expect.any(String) });
      expect(FAILURE_MESSAGES.some((m) => a.body.message.startsWith(m)), a.body.message).toBe(true);
    }
    // The outage really happened in each phase.
    const failed = (phase: string) => load.inPhase(phase).filter((a) => a.body.status === 'error');
    for (const p of ['refused', 'hanging', 'http-503']) expect(failed(p).length, p).toBeGreaterThan(0);
    expect(failed('hanging').some((a) => a.body.message === UPSTREAM_MESSAGES.upstream_timeout)).toBe(true);

    // Exactly the successes were charged; every failure is on record; nothing is held.
    const successes = answers.filter((a: Answer) => a.body.status === 'success').length;
    const account = (await app.store.getAccount(accountId))!;
    expect({ credits: account.credits, held: account.held, usage: account.usage }).toEqual({ credits: CREDITS - successes, held: 0, usage: successes });
    expect(await app.store.listHolds()).toEqual([]);
    expect(await countRequestErrors(app, accountId)).toBe(answers.length - successes);

    await app.stop();
    cleanup.pop();
    const doctor = await runDoctor(databaseUrl);
    expect(doctor).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
  });
});

async function countRequestErrors(app: TestApp, accountId: string): Promise<number> {
  let count = 0;
  let after: string | null = null;
  do {
    const page = await app.store.listRequestErrors({ accountId, limit: 500, after });
    count += page.items.length;
    after = page.next;
  } while (after);
  return count;
}
