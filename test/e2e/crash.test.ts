// A slipgate process killed with SIGKILL mid-verification loses nothing: on
// restart its holds are released (or settled) and every account reconciles.
// The kills are placed, not hoped for: while the bank hangs, at a random
// point of a load with holds seen in flight, and between the bank's answer and
// the settle's commit (the settle held back by the engine's own locks or by a
// network partition).
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts/operations.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/domain/ports/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { concurrencyCase, testEngines } from '../helpers/engines.js';
import { openRawBooks } from '../helpers/raw-books.js';
import { settleBlockers } from '../helpers/settle-blockers.js';
import { startFakeKbank } from '../fakes/kbank-server.js';

describe.each(testEngines())('SIGKILL mid-verification on %s', (engine) => {
  const children: Child[] = [];
  const cleanup: (() => Promise<unknown>)[] = [];
  let store: Store | undefined;
  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    await store?.close();
    await engine.dispose?.();
  });

  for (const blocker of settleBlockers(engine)) {
    it(`killed after the bank answered, before the settle committed (${blocker.how}): ${blocker.outcome} on restart, doctor clean`, { timeout: 90_000 }, async () => {
      const bank = await startFakeKbank();
      cleanup.push(() => bank.close());
      const databaseUrl = await engine.databaseUrl();
      const own = await openStore(databaseUrl);
      cleanup.push(() => own.close());
      const raw = await openRawBooks(databaseUrl);
      cleanup.push(() => raw.close());
      const { account, apiKey } = await new AccountService(own).createAccount({ name: 'Window Shop', credits: 10, actor: 'test' });
      const block = await blocker.prepare(databaseUrl);
      cleanup.push(() => block.dispose());
      const env = { DATABASE_URL: block.slipgateUrl, UPSTREAMS: JSON.stringify([bank.config('kbank-window')]), UPSTREAM_TIMEOUT_MS: '60000', HOLD_STALE_MS: '600000' };
      const first = await spawnSlipgate(env);
      children.push(first);

      const atBank = bank.holdNextVerify();
      const answer = postVerify(first.publicUrl, apiKey.secret, sandboxQr()).catch((e: unknown) => e);
      await atBank.arrived;
      // The credit is held while the bank is asked.
      const holds = await raw.holdIds(account.id);
      expect(holds).toHaveLength(1);
      await block.engage(holds[0]!);
      atBank.release();
      await atBank.answered;
      await block.settleStuck();
      first.proc.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      await block.lift();
      // The caller heard nothing: no success, and no 500 from a settle that gave up.
      expect(await answer).toBeInstanceOf(Error);
      expect(bank.calls.verify).toBe(1);

      if (blocker.outcome === 'charged') {
        // The settle statement was already at the server; it commits once the lock is gone.
        await eventually(async () => (await raw.holdIds(account.id)).length === 0);
      }
      const second = await spawnSlipgate({ ...env, DATABASE_URL: databaseUrl, HOLD_STALE_MS: '500' });
      children.push(second);
      await eventually(async () => (await own.listHolds(account.id)).length === 0);
      const after = await own.getAccount(account.id);
      const interrupted = await own.listRequestErrors({ accountId: account.id, kind: 'interrupted', limit: 10 });
      const verified = await own.listVerifyTransactions({ accountId: account.id, limit: 10 });
      if (blocker.outcome === 'released') {
        expect({ credits: after!.credits, held: after!.held, usage: after!.usage }).toEqual({ credits: 10, held: 0, usage: 0 });
        expect(interrupted.items.map((e) => e.id)).toEqual(holds);
        expect(verified.items).toEqual([]);
      } else {
        expect({ credits: after!.credits, held: after!.held, usage: after!.usage }).toEqual({ credits: 9, held: 0, usage: 1 });
        expect(verified.items.map((v) => v.id)).toEqual(holds);
        expect(interrupted.items).toEqual([]);
      }
      expect((await reconcileAccount(own, account.id)).problems).toEqual([]);
      expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
      second.proc.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    });
  }

  // Both cases verify on one account concurrently: see concurrencyCase().
  concurrencyCase(engine)('releases the dead process\u2019s holds on restart and reconciles exactly', { timeout: 90_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    store = await openStore(databaseUrl);
    const accounts = new AccountService(store);
    const { account, apiKey } = await accounts.createAccount({ name: 'Crash Shop', credits: 10, actor: 'test' });
    // Only the restarted process recovers holds: the first one, however slow this machine is, never takes its own.
    const env = { DATABASE_URL: databaseUrl, UPSTREAM_TIMEOUT_MS: '60000', HOLD_STALE_MS: '600000' };

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

    const second = await spawnSlipgate({ ...env, HOLD_STALE_MS: '1500' });
    children.push(second);
    await eventually(async () => (await store!.listHolds(account.id)).length === 0, 30_000);
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

  concurrencyCase(engine)('reconciles after a kill at a random moment under load, with holds in flight at the kill', { timeout: 90_000 }, async () => {
    const databaseUrl = await engine.databaseUrl();
    const own = await openStore(databaseUrl);
    const raw = await openRawBooks(databaseUrl);
    try {
      const accounts = new AccountService(own);
      const { account, apiKey } = await accounts.createAccount({ name: 'Load Shop', credits: 600, actor: 'test' });
      // The first process never recovers its own holds, however slow this machine is; the restarted one does.
      // The bank takes long enough that at any moment most requests in flight wait for it, holding their
      // credit: a batch of settles already sent commits even after the kill, so it could leave none.
      const env = { DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '50', HOLD_STALE_MS: '600000' };
      const child = await spawnSlipgate(env);
      children.push(child);
      // A steady load, not one burst: callers that each send their next request when the last one
      // is answered keep credit held at every moment while usage climbs. (A burst of 200 holds and
      // settles in a few large batches, so usage can jump past the random mark with no hold left.)
      let started = 0;
      let stopped = false;
      const caller = async () => {
        const answers: (Awaited<ReturnType<typeof postVerify>> | null)[] = [];
        while (!stopped && started < 550) {
          started += 1;
          answers.push(await postVerify(child.publicUrl, apiKey.secret, sandboxQr()).catch(() => null));
        }
        return answers;
      };
      const load = Array.from({ length: 16 }, caller);
      // The random moment: once a random number of them were charged, while
      // others still hold their credit (read through the engine's own driver).
      const chargedBeforeKill = 1 + Math.floor(Math.random() * 100);
      await eventually(async () => {
        const books = await raw.holdsAndUsage(account.id);
        return books.usage >= chargedBeforeKill && books.holdIds.length > 0;
      }, 60_000);
      stopped = true;
      child.proc.kill('SIGKILL');
      expect(await child.exited).toBeNull();
      // The holds in flight at the kill and the charges made by then, read in one snapshot: a settle
      // batch already at the database may still commit after the kill, and read in two queries its
      // holds could count both as in flight and as charged.
      const atKill = await raw.holdsAndUsage(account.id);
      const inFlightAtKill = atKill.holdIds.length;
      const usageAtKill = atKill.usage;
      expect(inFlightAtKill).toBeGreaterThan(0);
      const answered = (await Promise.all(load)).flat().filter((r) => r?.body.status === 'success').length;

      const restarted = await spawnSlipgate({ ...env, HOLD_STALE_MS: '1000' });
      children.push(restarted);
      await eventually(async () => (await own.listHolds(account.id)).length === 0, 30_000);
      const check = await reconcileAccount(own, account.id);
      expect(check.problems).toEqual([]);
      // Every success a caller saw was charged; a charge may exist whose answer was lost with the socket.
      expect(check.usage).toBeGreaterThanOrEqual(answered);
      expect(check.credits + check.usage).toBe(600);
      const interrupted = await own.listRequestErrors({ accountId: account.id, kind: 'interrupted', limit: 600 });
      // Each hold in flight at the kill was either charged (its success recorded) or refunded as interrupted.
      expect(interrupted.items.length + (check.usage - usageAtKill)).toBe(inFlightAtKill);
      expect(await runDoctor(databaseUrl)).toMatchObject({ code: 0, accounts: 1, discrepancies: [], openHolds: 0 });
      restarted.proc.kill('SIGTERM');
      await restarted.exited;
    } finally {
      await raw.close();
      await own.close();
    }
  });
});
