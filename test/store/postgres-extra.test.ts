// PostgreSQL-only guarantees the shared contract cannot express: several
// connection pools on one database (in this one test process, standing in
// for several slipgate processes), racing migrations, and a database that
// drops connections or stops answering.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import type { LedgerEntry } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/postgres-store.js';
import { StoreError } from '../../src/domain/ports/store.js';
import { eventually } from '../helpers/child.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;

function ledger(accountId: string, delta: number, idempotencyKey: string | null = null): LedgerEntry {
  return { id: id('led'), accountId, kind: 'top_up', delta, reason: 'test', actor: 'extra', idempotencyKey, createdAt: new Date() };
}

const hold = (accountId: string, createdAt = new Date()) => ({ id: id('req'), accountId, keyId: 'key_test', createdAt });

/** The outcome of a call that may only succeed or fail as 'unavailable' (a hang fails the test at its timeout). */
async function outcome(p: Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('unavailable');
    return 'unavailable';
  }
}

describe('postgres store: several connection pools, one database', () => {
  let db: TestDatabase;
  let probe: pg.Client;
  const opened: PostgresStore[] = [];
  const open = (url: string, options?: PostgresStoreOptions) => {
    const store = new PostgresStore(url, options);
    opened.push(store);
    return store;
  };
  const one = async <T extends pg.QueryResultRow>(sql: string, ...args: unknown[]) => (await probe.query<T>(sql, args)).rows[0]!;

  beforeAll(async () => {
    db = await createTestDatabase();
    await open(db.url).migrate();
    probe = new pg.Client({ connectionString: db.url, application_name: 'slipgate-test-probe' });
    await probe.connect();
  });
  afterAll(async () => {
    await probe?.end();
    await Promise.all(opened.map((s) => s.close()));
    await db?.drop();
  });

  async function account(store: PostgresStore, credits: number): Promise<string> {
    const acc = await store.createAccount({ id: id('acc'), name: 'Shop', createdAt: new Date() });
    if (credits > 0) await store.applyLedgerEntry(ledger(acc.id, credits));
    return acc.id;
  }

  it('runs migrations once when three instances start at the same time, and again as a no-op', async () => {
    const fresh = await createTestDatabase();
    const stores = [1, 2, 3].map(() => new PostgresStore(fresh.url));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      await Promise.all(stores.map((s) => s.migrate()));
      const check = new pg.Client({ connectionString: fresh.url });
      await check.connect();
      const versions = (await check.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
      await check.end();
      expect(versions).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
      const acc = await stores[0]!.createAccount({ id: id('acc'), name: 'x', createdAt: new Date() });
      expect((await stores[2]!.getAccount(acc.id))?.id).toBe(acc.id);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await fresh.drop();
    }
  });

  it('is what openStore gives for postgres:// and postgresql:// URLs', async () => {
    for (const url of [db.url, db.url.replace(/^postgres:/, 'postgresql:')]) {
      const store = await openStore(url);
      expect(store).toBeInstanceOf(PostgresStore);
      await store.ping();
      await store.close();
    }
  });

  it('stores text with U+0000 (which PostgreSQL refuses) as U+FFFD instead of failing', async () => {
    const store = open(db.url);
    const accountId = await account(store, 1);
    await store.insertRequestError({
      id: id('req'), accountId, keyId: null, requestId: 'r', qrcode: 'bad\0qr', transactionId: null, sendingBank: null, kind: 'invalid_qr', message: 'm', upstream: null, latencyMs: 0, createdAt: new Date(),
    });
    const h = hold(accountId);
    await store.holdCredit(h);
    await store.settleHold({
      id: h.id, accountId, keyId: h.keyId, requestId: h.id, qrcode: 'q\0', transactionId: 'TX', amount: 100.38, sendingBank: '004',
      receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: { rawData: { name: 'a\0b' } } as never, createdAt: new Date(),
    });
    expect((await store.listRequestErrors({ accountId, limit: 1 })).items[0]?.qrcode).toBe('bad\uFFFDqr');
    const [vt] = (await store.listVerifyTransactions({ accountId, limit: 1 })).items;
    expect(vt).toMatchObject({ qrcode: 'q\uFFFD', amount: 100.38, response: { rawData: { name: 'a\uFFFDb' } } });
  });

  it('two connection pools: 200 concurrent holds against 50 credits give exactly 50', async () => {
    const a = open(db.url);
    const b = open(db.url);
    const accountId = await account(a, 50);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).holdCredit(hold(accountId))));
    expect(results.filter((r) => r.status === 'held')).toHaveLength(50);
    expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(150);
    expect(await one('SELECT credits, usage FROM accounts WHERE id = $1', accountId)).toEqual({ credits: 0, usage: 0 });
    expect(await one('SELECT count(*)::int AS n FROM credit_holds WHERE account_id = $1', accountId)).toEqual({ n: 50 });
  });

  it('holds that arrive together go in one statement, granted per account in arrival order, each told its own balance', async () => {
    const store = open(db.url);
    const rich = await account(store, 100);
    const poor = await account(store, 3);
    const empty = await account(store, 0);
    const deleted = await account(store, 5);
    await store.deleteAccount(deleted, new Date());
    // The first hold goes alone; the other 24, queued while it runs, share the next statement.
    const asked = [rich, ...Array.from({ length: 6 }, () => [poor, rich, empty, deleted]).flat()];
    const results = await Promise.all([...asked, 'acc_missing'].map((accountId) => store.holdCredit(hold(accountId))));
    const of = (accountId: string) => results.filter((_, i) => ([...asked, 'acc_missing'][i] === accountId));
    expect(of(rich)).toEqual([99, 98, 97, 96, 95, 94, 93].map((credits) => ({ status: 'held', credits })));
    expect(of(poor)).toEqual([2, 1, 0].map((credits) => ({ status: 'held', credits })).concat(Array(3).fill({ status: 'insufficient' })));
    expect(of(empty)).toEqual(Array(6).fill({ status: 'insufficient' }));
    expect(of(deleted)).toEqual(Array(6).fill({ status: 'no_account' }));
    expect(of('acc_missing')).toEqual([{ status: 'no_account' }]);
    for (const [accountId, credits, holds] of [[rich, 93, 7], [poor, 0, 3], [empty, 0, 0], [deleted, 5, 0]] as const) {
      expect(await one('SELECT credits FROM accounts WHERE id = $1', accountId)).toEqual({ credits });
      expect(await one('SELECT count(*)::int AS n FROM credit_holds WHERE account_id = $1', accountId)).toEqual({ n: holds });
    }
    // Rows written by one statement share its transaction id: the 10 holds came from at most two statements, not ten.
    expect((await one<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM credit_holds WHERE account_id = ANY($1)', [rich, poor])).n).toBeLessThanOrEqual(2);
  });

  it('reconciles a busy account: balance and records are read from one snapshot', async () => {
    const writers = [open(db.url), open(db.url)];
    const reader = open(db.url);
    const accountId = await account(writers[0]!, 400);
    let stop = false;
    const work = writers.map(async (store) => {
      while (!stop) {
        const h = hold(accountId);
        if ((await store.holdCredit(h)).status !== 'held') return;
        await store.settleHold({
          id: h.id, accountId, keyId: h.keyId, requestId: h.id, qrcode: 'q', transactionId: h.id, amount: 1, sendingBank: '004',
          receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: {} as never, createdAt: new Date(),
        });
      }
    });
    const snapshots = [];
    for (let i = 0; i < 150; i++) snapshots.push((await reconcileAccount(reader, accountId)).problems);
    stop = true;
    await Promise.all(work);
    const final = await reconcileAccount(reader, accountId);
    // Verifications really ran while it read, and no read saw a half-finished one.
    expect(final.usage).toBeGreaterThan(20);
    expect(snapshots.filter((p) => p.length > 0)).toEqual([]);
    expect(final.problems).toEqual([]);
    expect(await reader.auditTotals('acc_missing')).toBeNull();
  });

  it('two connection pools: 20 identical top-ups racing each other grant once', async () => {
    const a = open(db.url);
    const b = open(db.url);
    const accountId = await account(a, 0);
    const key = `topup-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).applyLedgerEntry(ledger(accountId, 7, key))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    expect(await one('SELECT credits FROM accounts WHERE id = $1', accountId)).toEqual({ credits: 7 });
    expect(await one('SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1', accountId)).toEqual({ n: 1 });
  });

  it('recovery racing settles and another recovery ends every hold exactly one way', async () => {
    const a = open(db.url);
    const b = open(db.url);
    const accountId = await account(a, 40);
    const holds = Array.from({ length: 40 }, () => hold(accountId, new Date('2020-01-01T00:00:00Z')));
    for (const h of holds) expect((await a.holdCredit(h)).status).toBe('held');

    // Each settle under a request id of its own, so a record written for the wrong caller shows.
    const settling = holds.filter((_, i) => i % 2);
    const requestIdOf = (holdId: string) => `http_${holdId}`;
    const settles = settling.map((h) =>
      a.settleHold({
        id: h.id, accountId, keyId: h.keyId, requestId: requestIdOf(h.id), qrcode: 'qr', transactionId: `TX-${h.id}`, amount: 1.5,
        sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: {} as never, createdAt: new Date(),
      }).then(() => 'settled' as const, (err: unknown) => {
        expect((err as StoreError).code).toBe('conflict');
        return 'lost' as const;
      }),
    );
    const cutoff = new Date('2021-01-01T00:00:00Z');
    const [settled, r1, r2] = await Promise.all([Promise.all(settles), a.recoverStaleHolds(cutoff, new Date()), b.recoverStaleHolds(cutoff, new Date())]);

    const won = settled.filter((s) => s === 'settled').length;
    const released = r1.released + r2.released;
    expect(r1.consumed + r2.consumed).toBe(0);
    expect(won + released).toBe(40);
    expect(await one('SELECT credits, usage FROM accounts WHERE id = $1', accountId)).toEqual({ credits: released, usage: won });
    expect(await one('SELECT count(*)::int AS n FROM credit_holds WHERE account_id = $1', accountId)).toEqual({ n: 0 });
    expect(await one('SELECT count(*)::int AS n FROM verify_transactions WHERE account_id = $1', accountId)).toEqual({ n: won });
    expect(await one(`SELECT count(*)::int AS n FROM request_errors WHERE account_id = $1 AND kind = 'interrupted'`, accountId)).toEqual({ n: released });
    // Identities, not counts: the callers told "settled" are exactly the success records, with their own
    // request ids; every other hold is exactly one "interrupted" refund.
    const told = settling.filter((_, i) => settled[i] === 'settled').map((h) => h.id);
    const rows = async (sql: string) => (await probe.query<{ id: string; request_id: string }>(sql, [accountId])).rows;
    const recorded = await rows('SELECT id, request_id FROM verify_transactions WHERE account_id = $1');
    expect(recorded.map((r) => `${r.id} ${r.request_id}`).sort()).toEqual(told.map((h) => `${h} ${requestIdOf(h)}`).sort());
    const refunded = await rows(`SELECT id FROM request_errors WHERE account_id = $1 AND kind = 'interrupted'`);
    expect(refunded.map((r) => r.id).sort()).toEqual(holds.map((h) => h.id).filter((h) => !told.includes(h)).sort());
  });

  it('terminated connections mid-operation surface as unavailable, change nothing, and the pool reconnects', async () => {
    const store = open(db.url);
    const accountId = await account(store, 5);
    // Hold the account row so the calls below are caught inside PostgreSQL.
    const locker = new pg.Client({ connectionString: db.url, application_name: 'slipgate-test-locker' });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      // Settled right away so a rejection is never unhandled while we wait.
      const inFlight = Promise.allSettled([store.holdCredit(hold(accountId)), store.applyLedgerEntry(ledger(accountId, 3, `k-${randomUUID()}`))]);
      await eventually(
        async () => (await one<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'slipgate' AND wait_event_type = 'Lock'`)).n >= 2,
      );
      await locker.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'slipgate' AND datname = current_database()`);
      for (const result of await inFlight) {
        expect(result.status).toBe('rejected');
        const err = (result as PromiseRejectedResult).reason as unknown;
        expect(err).toBeInstanceOf(StoreError);
        expect((err as StoreError).code).toBe('unavailable');
      }
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect(await one('SELECT credits, usage FROM accounts WHERE id = $1', accountId)).toEqual({ credits: 5, usage: 0 });
    expect(await one('SELECT count(*)::int AS n FROM credit_holds WHERE account_id = $1', accountId)).toEqual({ n: 0 });
    expect(await one('SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1', accountId)).toEqual({ n: 1 });

    // Idle pooled connections killed too: each next call succeeds on a new
    // connection or fails as 'unavailable', and the pool comes back.
    await Promise.all(Array.from({ length: 5 }, () => store.getAccount(accountId)));
    await probe.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'slipgate' AND datname = current_database()`);
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) outcomes.push(await outcome(store.holdCredit(hold(accountId))));
    expect(outcomes.at(-1)).toBe('ok');
    const held = outcomes.filter((o) => o === 'ok').length;
    expect(await one('SELECT credits FROM accounts WHERE id = $1', accountId)).toEqual({ credits: 5 - held });
  });

  it('an unreachable server is unavailable, not a hang or a driver error', async () => {
    const store = open('postgres://postgres@127.0.0.1:1/nowhere', { connectTimeoutMs: 1_000 });
    const calls = [store.ping(), store.migrate(), store.holdCredit(hold('acc_x')), store.applyLedgerEntry(ledger('acc_x', 1))];
    expect(await Promise.all(calls.map(outcome))).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
  });

  it('a statement stuck behind a lock ends at statement_timeout as unavailable', async () => {
    const url = new URL(db.url);
    url.searchParams.set('statement_timeout', '300');
    url.searchParams.set('pool_max', '2');
    const store = open(url.toString());
    const accountId = await account(store, 2);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      // Still behind the lock (held until the finally): PostgreSQL itself cancelled the statement.
      const err = await store.holdCredit(hold(accountId)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).code).toBe('unavailable');
      expect(((err as StoreError).cause as { code?: string }).code).toBe('57014');
      expect(((err as StoreError).cause as Error).message).toMatch(/statement timeout/);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await store.holdCredit(hold(accountId))).status).toBe('held');
  });
});
