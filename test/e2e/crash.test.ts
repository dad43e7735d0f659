// A slipgate process killed with SIGKILL mid-verification loses nothing: on
// restart its holds are released (or settled) and every account reconciles.
// The kills are placed, not hoped for: while the bank hangs, at a random
// point of a load with holds seen in flight, and between the bank's answer and
// the settle's commit (the settle held back by the engine's own locks or by a
// network partition).
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/domain/accounts.js';
import { reconcileAccount } from '../../src/domain/reconcile.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { eventually, postVerify, spawnSlipgate, type Child } from '../helpers/child.js';
import { runDoctor } from '../helpers/doctor.js';
import { concurrencyCase, testEngines, type TestEngine } from '../helpers/engines.js';
import { openRawBooks, type RawBooks } from '../helpers/raw-books.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
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
      const { account, apiKey } = await accounts.createAccount({ name: 'Load Shop', credits: 300, actor: 'test' });
      // The first process never recovers its own holds, however slow this machine is; the restarted one does.
      const env = { DATABASE_URL: databaseUrl, SANDBOX_LATENCY_MS: '5', HOLD_STALE_MS: '600000' };
      const child = await spawnSlipgate(env);
      children.push(child);
      const load = Array.from({ length: 200 }, () => postVerify(child.publicUrl, apiKey.secret, sandboxQr()).catch(() => null));
      // The random moment: once a random number of the 200 were charged, while
      // others still hold their credit (read through the engine's own driver).
      const chargedBeforeKill = 1 + Math.floor(Math.random() * 100);
      await eventually(async () => (await raw.usage(account.id)) >= chargedBeforeKill && (await raw.holdIds(account.id)).length > 0, 60_000);
      child.proc.kill('SIGKILL');
      expect(await child.exited).toBeNull();
      // Nothing changes the books of a dead process: these holds were in flight at the kill.
      const inFlightAtKill = (await raw.holdIds(account.id)).length;
      const usageAtKill = await raw.usage(account.id);
      expect(inFlightAtKill).toBeGreaterThan(0);
      const answered = (await Promise.all(load)).filter((r) => r?.body.status === 'success').length;

      const restarted = await spawnSlipgate({ ...env, HOLD_STALE_MS: '1000' });
      children.push(restarted);
      await eventually(async () => (await own.listHolds(account.id)).length === 0, 30_000);
      const check = await reconcileAccount(own, account.id);
      expect(check.problems).toEqual([]);
      // Every success a caller saw was charged; a charge may exist whose answer was lost with the socket.
      expect(check.usage).toBeGreaterThanOrEqual(answered);
      expect(check.credits + check.usage).toBe(300);
      const interrupted = await own.listRequestErrors({ accountId: account.id, kind: 'interrupted', limit: 300 });
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

/** A way to keep slipgate's settle from committing, through the real engine or network. */
interface SettleBlocker {
  how: string;
  /** What recovery finds: the settle never reached the store (released), or reached it and commits on its own (charged). */
  outcome: 'released' | 'charged';
  prepare(databaseUrl: string): Promise<SettleBlock>;
}

interface SettleBlock {
  /** The DATABASE_URL slipgate gets. */
  slipgateUrl: string;
  /** Blocks; called once the hold exists and before the bank answers. */
  engage(holdId: string): Promise<void>;
  /** Resolves when the settle has observably reached the block (or cannot be observed, but cannot commit). */
  settleStuck(): Promise<void>;
  lift(): Promise<void>;
  dispose(): Promise<void>;
}

function settleBlockers(engine: TestEngine): SettleBlocker[] {
  if (engine.name === 'sqlite') return [sqliteWriteLock];
  if (engine.name === 'postgres') return [postgresRowLock, networkPartition];
  return [networkPartition];
}

/**
 * The test's own connection holds SQLite's write lock (BEGIN IMMEDIATE), so
 * the settle waits in its busy handler; the kill lands well inside its 5 s.
 */
const sqliteWriteLock: SettleBlocker = {
  how: 'SQLite write lock held by another connection',
  outcome: 'released',
  async prepare(databaseUrl) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    return {
      slipgateUrl: databaseUrl,
      engage: async () => void db.exec('BEGIN IMMEDIATE'),
      // SQLite shows no waiter; what matters is that nothing can commit while the lock is held.
      settleStuck: async () => {},
      lift: async () => void db.exec('ROLLBACK'),
      dispose: async () => void db.close(),
    };
  },
};

/**
 * The test locks the hold's row (SELECT … FOR UPDATE) and waits until a
 * slipgate backend is seen waiting for it in pg_locks: the settle statement
 * is at the server. PostgreSQL finishes a statement whose client died, so
 * once the lock is gone it commits: the charge stands.
 */
const postgresRowLock: SettleBlocker = {
  how: 'PostgreSQL row lock on the hold',
  outcome: 'charged',
  async prepare(databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    // The database is dropped WITH (FORCE) at the end; that is not a failure.
    client.on('error', () => {});
    await client.connect();
    return {
      slipgateUrl: databaseUrl,
      async engage(holdId) {
        await client.query('BEGIN');
        await client.query('SELECT id FROM credit_holds WHERE id = $1 FOR UPDATE', [holdId]);
      },
      settleStuck: () =>
        eventually(async () => {
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE NOT l.granted AND a.datname = current_database() AND a.pid <> pg_backend_pid()`,
          );
          return rows[0]!.n > 0;
        }),
      lift: async () => void (await client.query('ROLLBACK')),
      dispose: () => client.end(),
    };
  },
};

/**
 * slipgate reaches its database through a TCP proxy that swallows everything
 * once engaged (a network partition): the settle's first request is seen
 * arriving at the proxy and never reaches the server.
 */
const networkPartition: SettleBlocker = {
  how: 'network partition between slipgate and the database',
  outcome: 'released',
  async prepare(databaseUrl) {
    const direct = /^(\w+:\/\/(?:[^@/]*@)?)([^:/]+):(\d+)(.*)$/.exec(databaseUrl);
    if (!direct) throw new Error(`cannot route ${databaseUrl} through a proxy`);
    const [, scheme, host, port, rest] = direct;
    const proxy: TcpProxy = await startTcpProxy({ host: host!, port: Number(port) });
    let swallowedAtCut = 0;
    return {
      slipgateUrl: `${scheme}127.0.0.1:${proxy.port}${rest}`,
      async engage() {
        proxy.cut('blackhole');
        swallowedAtCut = proxy.swallowed;
      },
      settleStuck: () => eventually(async () => proxy.swallowed > swallowedAtCut),
      lift: async () => proxy.restore(),
      dispose: () => proxy.close(),
    };
  },
};
