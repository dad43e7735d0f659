// Every PostgreSQL statement that moves `accounts.credits`, driven step by
// step against the hold batch (issue #37). A trigger that exists only in this
// test's database makes each change of an account's balance wait, after its
// row is written and before its transaction ends, on an advisory lock the
// test holds for that account and direction. So the first writer sits on its
// uncommitted new row; the statement under test starts, takes its snapshot
// (which cannot see that row) and queues behind it inside PostgreSQL (seen in
// pg_stat_activity, no sleeps); then the test lets go and they finish in
// that order. Each case is one fixed interleaving in which the holds'
// snapshot balance (the probe reads it while everything waits) differs from
// the balance their row lock returns, the one they must grant from and
// write over.
//
// (Not a second transaction holding the row lock instead: when it lets go,
// a waiter that already holds a share lock on the row, as an insert that
// references the account takes, may pass the queue, so who goes first would
// be luck.)
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { StoreError, type HoldResult } from '../../src/domain/ports/store.js';
import type { CreditHold, LedgerEntry, LedgerKind } from '../../src/domain/types.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { eventually } from '../helpers/child.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const LONG_AGO = new Date('2020-01-01T00:00:00Z');

const ledger = (accountId: string, delta: number, idempotencyKey: string | null, kind: LedgerKind = 'top_up'): LedgerEntry => ({
  id: id('led'),
  accountId,
  kind,
  delta,
  reason: 'race test',
  actor: 'test',
  idempotencyKey,
  createdAt: new Date(),
});
const hold = (accountId: string, createdAt = new Date()): CreditHold => ({ id: id('req'), accountId, keyId: 'key_race', createdAt });
const slipNotFound = (h: CreditHold) => ({
  id: h.id,
  accountId: h.accountId,
  keyId: h.keyId,
  requestId: h.id,
  qrcode: 'qr',
  transactionId: null,
  sendingBank: null,
  kind: 'slip_not_found' as const,
  message: 'slip not found',
  upstream: 'sandbox',
  latencyMs: 1,
  createdAt: new Date(),
});
const verified = (h: CreditHold) => ({
  id: h.id, accountId: h.accountId, keyId: h.keyId, requestId: h.id, qrcode: 'qr', transactionId: `TX-${h.id}`, amount: 1,
  sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: {} as never, createdAt: new Date(),
});
type Change = 'raise' | 'lower' | 'charge';
/** Test-only: every change of an account row waits for `<account id> <kind of change>` to be free. */
const PAUSE_TRIGGER = `
  CREATE FUNCTION test_pause_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock_shared(hashtext(NEW.id || ' ' ||
      CASE WHEN NEW.credits > OLD.credits THEN 'raise' WHEN NEW.credits < OLD.credits THEN 'lower' ELSE 'charge' END));
    RETURN NULL;
  END $$;
  CREATE TRIGGER test_pause AFTER UPDATE ON accounts FOR EACH ROW EXECUTE FUNCTION test_pause_account_change();`;

const held = (...credits: number[]): HoldResult[] => credits.map((c) => ({ status: 'held', credits: c }));
const refused = (n: number): HoldResult[] => Array(n).fill({ status: 'insufficient' });

describe('postgres: statements that move credits, interleaved step by step with the hold batch', () => {
  let db: TestDatabase;
  let probe: pg.Client;
  let locker: pg.Client;
  const stores: PostgresStore[] = [];
  /** A store is one slipgate process: its own pool and its own hold batch. */
  let a: PostgresStore;
  let b: PostgresStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    [a, b] = [new PostgresStore(db.url), new PostgresStore(db.url)];
    stores.push(a, b);
    await a.migrate();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(PAUSE_TRIGGER);
    await admin.end();
    probe = new pg.Client({ connectionString: db.url, application_name: 'slipgate-test-probe' });
    locker = new pg.Client({ connectionString: db.url, application_name: 'slipgate-test-locker' });
    await Promise.all([probe.connect(), locker.connect()]);
  });
  // A failed case must not leave its pause to the next one.
  afterEach(() => locker.query('SELECT pg_advisory_unlock_all()'));
  afterAll(async () => {
    await probe?.end();
    await locker?.end();
    await Promise.all(stores.map((s) => s.close()));
    await db?.drop();
  });

  async function account(credits: number): Promise<string> {
    const acc = await a.createAccount({ id: id('acc'), name: 'Race Shop', createdAt: new Date() });
    if (credits > 0) await a.applyLedgerEntry(ledger(acc.id, credits, null, 'initial'));
    return acc.id;
  }
  const one = async <T extends pg.QueryResultRow>(sql: string, ...args: unknown[]) => (await probe.query<T>(sql, args)).rows[0]!;
  const credits = async (accountId: string) => (await probe.query<{ credits: number }>('SELECT credits FROM accounts WHERE id = $1', [accountId])).rows[0]!.credits;

  /** Makes the account's changes of one kind wait (see the top of the file) until the returned function is called. */
  async function pause(accountId: string, change: Change): Promise<() => Promise<void>> {
    await locker.query('SELECT pg_advisory_lock(hashtext($1))', [`${accountId} ${change}`]);
    return async () => void (await locker.query('SELECT pg_advisory_unlock(hashtext($1))', [`${accountId} ${change}`]));
  }
  /** Resolves once exactly `n` statements of this database wait for a lock (they have their snapshots and are queued). */
  const queued = (n: number) =>
    eventually(async () => {
      const { rows } = await probe.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      return rows[0]!.n === n;
    });

  /**
   * `count` holds of `store` on the account, as one statement (wrapped: awaiting
   * this waits only until they are sent): a hold on a
   * free account goes first, alone, and these queue behind it in the
   * process, so they reach PostgreSQL together as one batch.
   */
  async function holds(store: PostgresStore, accountId: string, count: number): Promise<{ results: Promise<HoldResult[]> }> {
    if (count === 1) return { results: Promise.all([store.holdCredit(hold(accountId))]) };
    const decoy = await account(1);
    const first = store.holdCredit(hold(decoy));
    const results = Promise.all(Array.from({ length: count }, () => store.holdCredit(hold(accountId))));
    expect(await first).toEqual({ status: 'held', credits: 0 });
    return { results };
  }

  /** What raises the balance under the holds: each starts, writes its row and is left waiting before its commit. */
  const raises: { name: string; added: number; waiters: number; givesBack?: true; raise(accountId: string, start: number): Promise<unknown> }[] = [
    { name: 'a top-up', added: 5, waiters: 1, raise: (acc) => a.applyLedgerEntry(ledger(acc, 5, `inv-${randomUUID()}`)) },
    {
      // The second waits on the first's idempotency key, then replays it.
      name: 'two top-ups sharing one idempotency key, from two processes',
      added: 5,
      waiters: 2,
      async raise(acc) {
        const key = `inv-${randomUUID()}`;
        const first = a.applyLedgerEntry(ledger(acc, 5, key));
        await queued(1);
        const results = await Promise.all([first, b.applyLedgerEntry(ledger(acc, 5, key))]);
        expect(results.map((r) => r.created)).toEqual([true, false]);
      },
    },
    {
      name: 'the release of a failed verification',
      added: 1,
      givesBack: true,
      waiters: 1,
      async raise(acc, start) {
        const [h] = (await a.listHolds(acc)) as [CreditHold];
        // The refund's own balance, as the failed verification's answer tells it.
        expect(await b.releaseHold(slipNotFound(h))).toBe(start + 1);
      },
    },
    {
      name: 'crash recovery refunding a stale hold',
      added: 1,
      givesBack: true,
      waiters: 1,
      raise: async () => expect(await b.recoverStaleHolds(new Date(LONG_AGO.getTime() + 1), new Date())).toEqual({ consumed: 0, released: 1 }),
    },
  ];

  for (const raise of raises) {
    for (const asked of [1, 3]) {
      it(`${asked === 1 ? 'a lone hold' : `a batch of ${asked} holds`} racing ${raise.name}: grants from and writes over the locked balance`, async () => {
        // What the holds' snapshot will see: less than they are granted from the raised balance.
        const start = asked === 1 ? 0 : 1;
        const accountId = await account(raise.givesBack ? start + 1 : start);
        // The release and the recovery give back a credit held before.
        if (raise.givesBack) expect(await a.holdCredit(hold(accountId, LONG_AGO))).toEqual({ status: 'held', credits: start });

        const unpause = await pause(accountId, 'raise');
        const raising = raise.raise(accountId, start);
        await queued(raise.waiters);
        const holding = await holds(a, accountId, asked);
        await queued(raise.waiters + 1);
        // The balance the holds' statement snapshot holds: the raise has not committed yet.
        expect(await credits(accountId)).toBe(start);

        await unpause();
        await raising;
        // Their row lock returned the raised balance and they granted from it. The UPDATE that took the
        // credits first computed the new balance from the snapshot's, and the CHECK (credits >= 0)
        // refused the statement (issue #37) before PostgreSQL re-read the row.
        const locked = start + raise.added;
        const granted = Math.min(asked, locked);
        expect(await holding.results).toEqual([...held(...Array.from({ length: granted }, (_, i) => locked - 1 - i)), ...refused(asked - granted)]);
        expect(await credits(accountId)).toBe(locked - granted);
        // All granted by the one statement, not by the one-by-one retry that follows a failed batch.
        expect(await one('SELECT count(*)::int AS holds, count(DISTINCT xmin::text)::int AS statements FROM credit_holds WHERE account_id = $1', accountId)).toEqual({
          holds: granted,
          statements: 1,
        });
        expect((await reconcileAccount(a, accountId)).problems).toEqual([]);
      });
    }
  }

  it("another process's hold batch queued first takes the credits; the second grants from what is left", async () => {
    const accountId = await account(2);
    const unpause = await pause(accountId, 'lower');
    const first = await holds(a, accountId, 2);
    await queued(1);
    const second = await holds(b, accountId, 2);
    await queued(2);
    expect(await credits(accountId)).toBe(2);
    await unpause();
    expect(await first.results).toEqual(held(1, 0));
    expect(await second.results).toEqual(refused(2));
    expect(await credits(accountId)).toBe(0);
    expect((await reconcileAccount(a, accountId)).problems).toEqual([]);
  });

  it('a settle of another hold queued first leaves the balance to the hold batch behind it', async () => {
    const accountId = await account(3);
    const earlier = hold(accountId);
    expect(await a.holdCredit(earlier)).toEqual({ status: 'held', credits: 2 });
    const unpause = await pause(accountId, 'charge');
    const settling = b.settleHold(verified(earlier));
    await queued(1);
    const holding = await holds(a, accountId, 3);
    await queued(2);
    await unpause();
    await settling;
    expect(await holding.results).toEqual([...held(1, 0), ...refused(1)]);
    expect(await reconcileAccount(a, accountId)).toMatchObject({ usage: 1, held: 2, problems: [] });
  });

  // The ledger takes the account's row lock before anything else, so its guard (credits + delta >= 0)
  // is tested on the balance the holds queued before it left, not on what they found (2).
  it('a debit queued behind a hold batch is tested against the balance the holds left', async () => {
    const accountId = await account(2);
    const unpause = await pause(accountId, 'lower');
    const holding = await holds(a, accountId, 2);
    await queued(1);
    const debit = b.applyLedgerEntry(ledger(accountId, -1, `adj-${randomUUID()}`, 'adjustment')).then(
      () => 'applied',
      (err: unknown) => (err instanceof StoreError ? err.code : err),
    );
    await queued(2);
    expect(await credits(accountId)).toBe(2);
    await unpause();
    expect(await holding.results).toEqual(held(1, 0));
    expect(await debit).toBe('insufficient');
    expect(await credits(accountId)).toBe(0);
    expect((await reconcileAccount(a, accountId)).problems).toEqual([]);
  });

  // A statement's UPDATE scans the version of the row its snapshot saw, even after its lock step
  // locked a newer one. While another transaction holds a share lock on that old version (any
  // insert that references the account: an API key, a ledger entry), PostgreSQL makes the UPDATE
  // queue for the old version's tuple lock, and a second locker that queued there first and
  // follows the update chain to the newer version waits for the first: a deadlock. PostgreSQL
  // ends one of the two statements; it changed nothing, and it is tried again.
  it("a hold and a settle deadlocked over an old row version that someone share-locks: the victim is tried again, both succeed", async () => {
    const accountId = await account(2);
    const earlier = hold(accountId);
    expect(await a.holdCredit(earlier)).toEqual({ status: 'held', credits: 1 });
    const sharer = new pg.Client({ connectionString: db.url, application_name: 'slipgate-test-sharer' });
    await sharer.connect();
    try {
      const unpause = await pause(accountId, 'raise');
      const raising = a.applyLedgerEntry(ledger(accountId, 5, `inv-${randomUUID()}`));
      await queued(1);
      await sharer.query('BEGIN');
      await sharer.query('SELECT 1 FROM accounts WHERE id = $1 FOR KEY SHARE', [accountId]);
      const holding = b.holdCredit(hold(accountId));
      await queued(2);
      const settling = a.settleHold(verified(earlier)).then(() => 'settled');
      await queued(3);
      await unpause();
      await raising;
      expect(await Promise.all([holding, settling])).toEqual([{ status: 'held', credits: 5 }, 'settled']);
      await sharer.query('COMMIT');
      expect(await reconcileAccount(a, accountId)).toMatchObject({ credits: 5, held: 1, usage: 1, problems: [] });
    } finally {
      await sharer.end();
    }
  });

  it('a hold batch queued behind a debit grants from what the debit left', async () => {
    const accountId = await account(2);
    const unpause = await pause(accountId, 'lower');
    const debit = b.applyLedgerEntry(ledger(accountId, -1, `adj-${randomUUID()}`, 'adjustment'));
    await queued(1);
    const holding = await holds(a, accountId, 2);
    await queued(2);
    await unpause();
    expect((await debit).account.credits).toBe(1);
    expect(await holding.results).toEqual([...held(0), ...refused(1)]);
    expect((await reconcileAccount(a, accountId)).problems).toEqual([]);
  });
});
