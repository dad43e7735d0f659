// Scale-out: two slipgate processes share one database and are hammered
// together against one account. The money rules hold across processes only
// because every credit move is an atomic write in the database, never
// process memory: exactly N successes for N credits, everything else 1023,
// and the audit trail adds up (doctor is clean).
import { afterAll, describe, expect } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';

const CREDITS = 25;
const REQUESTS = 60;

describe.each(testEngines())('two slipgate processes on one %s database', (engine) => {
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await engine.dispose();
  });

  concurrencyCase(engine)(`${REQUESTS} concurrent verifications against ${CREDITS} credits: exactly ${CREDITS} succeed`, { timeout: 60_000 }, async () => {
    let databaseUrl = await engine.databaseUrl();
    // Several helpers share PostgreSQL's 100 connections: small pools.
    if (engine.name === 'postgres') databaseUrl += `${databaseUrl.includes('?') ? '&' : '?'}pool_max=4`;
    const store = await openStore(databaseUrl);
    try {
      const { account, apiKey } = await new AccountService(store).createAccount({ name: 'Scale Shop', credits: CREDITS, actor: 'test' });
      // A little network latency so requests of both processes overlap in flight.
      const env = { DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '20' };
      const [a, b] = await Promise.all([spawnSlipgate(env), spawnSlipgate(env)]);
      children.push(a!, b!);

      const results = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => postVerify((i % 2 ? a! : b!).publicUrl, apiKey.secret, sandboxQr())),
      );
      const successes = results.filter((r) => r.status === 200 && r.body.status === 'success');
      const refused = results.filter((r) => r.status === 400);
      expect(successes).toHaveLength(CREDITS);
      expect(refused).toHaveLength(REQUESTS - CREDITS);
      for (const r of refused) expect(r.body).toStrictEqual({ status: 'error', code: 1023, message: 'insufficient fund' });

      const after = await store.getAccount(account.id);
      expect({ credits: after!.credits, held: after!.held, usage: after!.usage }).toEqual({ credits: 0, held: 0, usage: CREDITS });
      const check = await reconcileAccount(store, account.id);
      expect(check).toMatchObject({ ledgerTotal: CREDITS, verifyTransactions: CREDITS, problems: [] });
      const insufficient = await store.listRequestErrors({ accountId: account.id, kind: 'insufficient_fund', limit: REQUESTS });
      // Identities, not counts: the requests either process answered "verified" are exactly the
      // recorded (charged) verifications, read through the engine's own driver; the 1023 answers
      // are exactly the insufficient-fund records.
      const raw = await openRawBooks(databaseUrl);
      try {
        expect(await raw.verifiedRequestIds(account.id)).toEqual(successes.map((r) => r.requestId).sort());
      } finally {
        await raw.close();
      }
      expect(insufficient.items.map((e) => e.requestId).sort()).toEqual(refused.map((r) => r.requestId).sort());
      expect(insufficient.items).toHaveLength(REQUESTS - CREDITS);
      expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });

      for (const c of [a!, b!]) c.proc.kill('SIGTERM');
      expect(await Promise.all([a!.exited, b!.exited])).toEqual([0, 0]);
    } finally {
      await store.close();
    }
  });
});
