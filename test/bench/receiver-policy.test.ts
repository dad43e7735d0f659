// The bench's --receiver-policy setup against a real slipgate on the sandbox
// network: every bench account gets the receiver the bench's slips pay, so
// under `require` each of them is a success, while a slip paid elsewhere is
// refused; the texts the bench counts to stop a wrong setup are the ones the
// answers really hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_PATH } from '../../src/http/public-app.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import type { BenchDatabase } from '../../scripts/bench/engines.js';
import type { LoadResult } from '../../scripts/bench/load.js';
import { checkReceiverRun, PAID_TO_RECEIVER, RECEIVER_MARKS, setReceiverPolicy } from '../../scripts/bench/receiver-policy.js';
import { scenarios } from '../../scripts/bench/scenarios.js';
import { startApp, type TestApp } from '../helpers/app.js';

let app: TestApp;
let db: BenchDatabase;

// No cache of receivers and policies: each policy set below holds at the next request.
beforeAll(async () => {
  app = await startApp({ env: { API_KEY_CACHE_TTL_MS: '0' } });
  db = { engine: 'sqlite', url: app.databaseUrl, description: 'test', drop: async () => {} };
});
afterAll(() => app?.stop());

async function verify(apiKey: string, qrcode: string): Promise<{ status: number; text: string }> {
  const res = await fetch(app.publicUrl + VERIFY_PATH, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ qrcode }) });
  return { status: res.status, text: await res.text() };
}

const load = (marked: Record<string, number>) => ({ marked, failureSamples: [] }) as unknown as LoadResult;

describe('bench --receiver-policy', () => {
  it('under require, every bench slip pays the registered receiver of every account, by account and name; a slip paid elsewhere is refused', async () => {
    const shops = [await app.account(100), await app.account(100)];
    await setReceiverPolicy(db, 'require');
    for (const shop of shops) {
      const paid = await verify(shop.apiKey, sandboxQr({ details: PAID_TO_RECEIVER }));
      expect(paid.status).toBe(200);
      expect(JSON.parse(paid.text).checks.receiver).toMatchObject({ passed: true, policy: 'require', matchedBy: ['account', 'name'] });
      const elsewhere = await verify(shop.apiKey, sandboxQr());
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.text).toContain(RECEIVER_MARKS.refused);
    }
    // Set again (every round does): still one receiver per account.
    await setReceiverPolicy(db, 'require');
    for (const shop of shops) expect(await app.store.listReceivers(shop.accountId)).toHaveLength(1);
  });

  it('under report, a slip paid elsewhere is a success the bench counts as unmatched; off adds nothing to the answer', async () => {
    const shop = await app.account(100);
    await setReceiverPolicy(db, 'report');
    const elsewhere = await verify(shop.apiKey, sandboxQr());
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain(RECEIVER_MARKS.unmatched);
    expect((await verify(shop.apiKey, sandboxQr({ details: PAID_TO_RECEIVER }))).text).not.toContain(RECEIVER_MARKS.unmatched);
    await setReceiverPolicy(db, 'off');
    expect((await verify(shop.apiKey, sandboxQr({ details: PAID_TO_RECEIVER }))).text).not.toContain('"checks"');
  });

  it('stops a run under a policy that saw a refusal or an unmatched receiver, and lets a clean one or a run without a policy through', () => {
    const require = { ...scenarios(true).A, id: 'A+require' as const, receiverPolicy: 'require' as const };
    expect(() => checkReceiverRun(require, load({ refused: 1, unmatched: 0 }), 'A+require/sqlite')).toThrow(/1 answers refused with 1025/);
    expect(() => checkReceiverRun(require, load({ refused: 0, unmatched: 2 }), 'A+require/sqlite')).toThrow(/2 successes paid no registered receiver/);
    expect(() => checkReceiverRun(require, load({ refused: 0, unmatched: 0 }), 'A+require/sqlite')).not.toThrow();
    expect(() => checkReceiverRun({ ...scenarios(true).A, receiverPolicy: 'off' }, load({ refused: 5, unmatched: 5 }), 'A/sqlite')).not.toThrow();
  });
});
