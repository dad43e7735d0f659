// A slipgate process killed with SIGKILL mid-verification loses nothing: on
// restart its holds are released (or settled) and every account reconciles.
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts.js';
import { reconcileAccount } from '../../src/domain/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';

describe.each(testEngines())('SIGKILL mid-verification on %s', (engine) => {
  const children: Child[] = [];
  let store: Store | undefined;
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await store?.close();
    await engine.dispose?.();
  });

  // Both cases verify on one account concurrently: see concurrencyCase().
  concurrencyCase(engine)('releases the dead process\u2019s holds on restart and reconciles exactly', async () => {
    const databaseUrl = await engine.databaseUrl();
    store = await openStore(databaseUrl);
    const accounts = new AccountService(store);
    const { account, apiKey } = await accounts.createAccount({ name: 'Crash Shop', credits: 10, actor: 'test' });
    const env = { DATABASE_URL: databaseUrl, UPSTREAM_TIMEOUT_MS: '60000', HOLD_STALE_MS: '1500' };

    const first = await spawnSlipgate(env);
    children.push(first);
    const ok = await Promise.all([postVerify(first.publicUrl, apiKey.secret, sandboxQr()), postVerify(first.publicUrl, apiKey.secret, sandboxQr())]);
    expect(ok.map((r) => r.body.status)).toEqual(['success', 'success']);

    // Three verifications hang at the network; their credits are held.
    const hanging = Array.from({ length: 3 }, () => postVerify(first.publicUrl, apiKey.secret, sandboxQr({ outcome: 'timeout' })).catch((e: unknown) => e));
    await eventually(async () => (await store!.listHolds(account.id)).length === 3);
    first.proc.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    for (const r of await Promise.all(hanging)) expect(r).toBeInstanceOf(Error);

    const dead = await store.getAccount(account.id);
    expect({ credits: dead!.credits, held: dead!.held, usage: dead!.usage }).toEqual({ credits: 5, held: 3, usage: 2 });

    const second = await spawnSlipgate(env);
    children.push(second);
    await eventually(async () => (await store!.listHolds(account.id)).length === 0);
    const after = await store.getAccount(account.id);
    expect({ credits: after!.credits, held: after!.held, usage: after!.usage }).toEqual({ credits: 8, held: 0, usage: 2 });
    const interrupted = await store.listRequestErrors({ accountId: account.id, kind: 'interrupted', limit: 10 });
    expect(interrupted.items).toHaveLength(3);
    expect((await reconcileAccount(store, account.id)).problems).toEqual([]);
    expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });

    // The restarted process serves as usual.
    expect((await postVerify(second.publicUrl, apiKey.secret, sandboxQr())).body.status).toBe('success');
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  concurrencyCase(engine)('reconciles after a kill at a random moment under load', async () => {
    const databaseUrl = await engine.databaseUrl();
    const own = await openStore(databaseUrl);
    try {
      const accounts = new AccountService(own);
      const { account, apiKey } = await accounts.createAccount({ name: 'Load Shop', credits: 300, actor: 'test' });
      const env = { DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '5', HOLD_STALE_MS: '1000' };
      const child = await spawnSlipgate(env);
      children.push(child);
      const load = Array.from({ length: 200 }, () => postVerify(child.publicUrl, apiKey.secret, sandboxQr()).catch(() => null));
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 200));
      child.proc.kill('SIGKILL');
      const answered = (await Promise.all(load)).filter((r) => r?.body.status === 'success').length;

      const restarted = await spawnSlipgate(env);
      children.push(restarted);
      await eventually(async () => (await own.listHolds(account.id)).length === 0);
      const check = await reconcileAccount(own, account.id);
      expect(check.problems).toEqual([]);
      // Every success a caller saw was charged; a charge may exist whose answer was lost with the socket.
      expect(check.usage).toBeGreaterThanOrEqual(answered);
      expect(check.credits + check.usage).toBe(300);
      expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
      restarted.proc.kill('SIGTERM');
      await restarted.exited;
    } finally {
      await own.close();
    }
  });
});
