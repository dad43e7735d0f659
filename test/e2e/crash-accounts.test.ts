// SIGKILL with verifications in flight on several accounts (one each), so
// no two requests touch the same account at once: this runs on every engine,
// FerretDB included, where crash.test.ts's one-account cases cannot (see
// concurrencyCase). A restarted process releases every hold exactly once.
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { testEngines } from '../helpers/engines.js';

describe.each(testEngines())('SIGKILL with one verification in flight per account on %s', (engine) => {
  const children: Child[] = [];
  let store: Store | undefined;
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await store?.close();
    await engine.dispose();
  });

  it('releases each account\u2019s hold on restart and every account reconciles', { timeout: 60_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    store = await openStore(databaseUrl);
    const service = new AccountService(store);
    const shops = await Promise.all([1, 2, 3].map((n) => service.createAccount({ name: `Shop ${n}`, credits: 2, actor: 'test' })));
    const env = { DATABASE_URL: databaseUrl, UPSTREAM_TIMEOUT_MS: '60000', HOLD_STALE_MS: '1500' };

    const first = await spawnSlipgate(env);
    children.push(first);
    expect((await postVerify(first.publicUrl, shops[0]!.apiKey.secret, sandboxQr())).body.status).toBe('success');
    const hanging = shops.map((s) => postVerify(first.publicUrl, s.apiKey.secret, sandboxQr({ outcome: 'timeout' })).catch((e: unknown) => e));
    await eventually(async () => (await store!.listHolds()).length === 3);
    first.proc.kill('SIGKILL');
    await first.exited;
    await Promise.all(hanging);

    const second = await spawnSlipgate(env);
    children.push(second);
    await eventually(async () => (await store!.listHolds()).length === 0);
    const balances = await store.getAccounts(shops.map((s) => s.account.id));
    const byId = new Map(balances.map((a) => [a.id, { credits: a.credits, held: a.held, usage: a.usage }]));
    expect(shops.map((s) => byId.get(s.account.id))).toEqual([
      { credits: 1, held: 0, usage: 1 },
      { credits: 2, held: 0, usage: 0 },
      { credits: 2, held: 0, usage: 0 },
    ]);
    for (const s of shops) {
      const interrupted = await store.listRequestErrors({ accountId: s.account.id, kind: 'interrupted', limit: 10 });
      expect(interrupted.items).toHaveLength(1);
      expect((await reconcileAccount(store, s.account.id)).problems).toEqual([]);
    }
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 3, discrepancies: [], openHolds: 0 });
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
