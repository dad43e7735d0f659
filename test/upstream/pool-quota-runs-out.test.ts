// Two slip APIs behind one slipgate: the first's quota runs out in the middle
// of concurrent verifications. Through the real pool, the real
// VerificationService and a real SQLite store: every verification is
// answered once and charged once, and the exhausted domain is not called
// again until a reading says its quota is back (counted at its server).
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { sandboxTransRef } from '../../src/upstream/sandbox/transaction.js';
import { quotaBankAdapter, startQuotaBank } from '../fixtures/quota-bank.js';
import { startApp, type TestApp } from '../helpers/app.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a pool of two slip APIs whose first runs out of quota mid-run', () => {
  it('answers and charges every verification once, and leaves the exhausted domain alone until its quota is back', async () => {
    const [monthly, payg] = [await startQuotaBank(7), await startQuotaBank()];
    cleanups.push(() => monthly.close(), () => payg.close());
    const pool = new UpstreamPool([monthly.config('monthly'), payg.config('payg', { priority: 2 })], { createAdapter: quotaBankAdapter });
    cleanups.push(() => pool.close());
    const app: TestApp = await startApp({ upstream: pool });
    cleanups.push(() => app.stop());
    const { accountId, apiKey } = await app.account(100);

    const slips = Array.from({ length: 30 }, (_, i) => slipQr('004', sandboxTransRef(100 + i, 'success', `Q${i}`)));
    const answers = await Promise.all(slips.map((qr) => app.verify(apiKey, qr)));
    expect(answers.map((a) => [a.status, a.body.status])).toEqual(slips.map(() => [200, 'success']));
    expect(monthly.calls.verify - monthly.calls.verifyWhileOut).toBe(7);
    // Concurrent requests already on their way when the quota ran out each met one refusal; after that, none.
    const refusedDuringRun = monthly.calls.verifyWhileOut;
    expect(monthly.calls.verify + payg.calls.verify).toBe(30 + refusedDuringRun);
    expect((await app.store.getAccount(accountId))?.credits).toBe(70);

    const more = await Promise.all([0, 1, 2].map((i) => app.verify(apiKey, slipQr('004', sandboxTransRef(500 + i, 'success', `M${i}`)))));
    expect(more.every((a) => a.body.status === 'success')).toBe(true);
    expect(monthly.calls.verifyWhileOut).toBe(refusedDuringRun);

    monthly.quota = 10;
    await pool.readQuotas(AbortSignal.timeout(5_000));
    const back = await app.verify(apiKey, slipQr('004', sandboxTransRef(900, 'success', 'BACK')));
    expect(back.body.status).toBe('success');
    expect(monthly.quota).toBe(9);
    expect((await app.store.getAccount(accountId))?.credits).toBe(66);
  });
});
