// The MongoDB store's crash windows. Without multi-document transactions a
// settle or a top-up is a sequence of single-document writes; these cases
// leave the database exactly as a process killed between two of them would
// (written through the raw driver) and check that recovery, or the next
// request, finishes the job once: nothing lost, nothing doubled.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import type { LedgerEntry, VerifyTransactionRecord } from '../../src/domain/types.js';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { StoreError } from '../../src/domain/ports/store.js';
import { openMongoStoreWithDriver } from '../helpers/mongo.js';

const id = (kind: string) => `${kind}_${randomUUID().replaceAll('-', '')}`;
const LONG_AGO = new Date('2020-01-01T00:00:00Z');
const cutoff = () => new Date(Date.now() - 60_000);

describe('mongo store: crash windows', () => {
  let mongo: Awaited<ReturnType<typeof openMongoStoreWithDriver>> | undefined;
  let store: MongoStore;
  let raw: mongoose.mongo.Db;

  beforeAll(async () => {
    mongo = await openMongoStoreWithDriver();
    ({ store, raw } = mongo);
  });
  afterAll(() => mongo?.close());

  async function account(credits: number): Promise<string> {
    const acc = await store.createAccount({ id: id('acc'), name: 'Crash', createdAt: new Date() });
    if (credits) await store.applyLedgerEntry(entry(acc.id, credits));
    return acc.id;
  }
  function entry(accountId: string, delta: number, idempotencyKey: string | null = null): LedgerEntry {
    return { id: id('led'), accountId, kind: 'top_up', delta, reason: 'test', actor: 'test', idempotencyKey, createdAt: new Date() };
  }
  function vt(accountId: string, holdId: string): VerifyTransactionRecord {
    return {
      id: holdId,
      accountId,
      keyId: 'key_x',
      requestId: holdId,
      qrcode: 'qr',
      transactionId: 'TX',
      amount: 1,
      sendingBank: '004',
      receivingBank: '014',
      upstream: 'sandbox',
      latencyMs: 1,
      response: { rawData: {} } as unknown as VerifyTransactionRecord['response'],
      createdAt: new Date(),
    };
  }
  async function insertRawVt(accountId: string, holdId: string): Promise<void> {
    const { id: _id, ...fields } = vt(accountId, holdId);
    await raw.collection('verify_transactions').insertOne({ _id, ...fields } as never);
  }
  /** A ledger entry as a crashed applyLedgerEntry left it: claimed, pending, written long ago. */
  async function insertPendingEntry(e: LedgerEntry): Promise<void> {
    const claim = e.idempotencyKey ? `key:${e.idempotencyKey}` : `id:${e.id}`;
    const { id: _id, createdAt: _at, ...fields } = e;
    await raw.collection('credit_ledger').insertOne({ _id, ...fields, claim, state: 'pending', appliedAt: null, pruned: false, createdAt: LONG_AGO } as never);
  }
  /** The crash came after the account was credited (the entry is still pending). */
  async function creditRaw(e: LedgerEntry): Promise<void> {
    await raw.collection('accounts').updateOne({ _id: e.accountId } as never, { $inc: { credits: e.delta }, $push: { appliedLedger: e.id } } as never);
  }
  const clean = async (accountId: string) => expect((await reconcileAccount(store, accountId)).problems).toEqual([]);
  const balance = async (accountId: string) => {
    const a = await store.getAccount(accountId);
    return { credits: a!.credits, held: a!.held, usage: a!.usage };
  };

  it('a settle killed after writing its record is charged by recovery, once', async () => {
    const accountId = await account(2);
    const holdId = id('req');
    await store.holdCredit({ id: holdId, accountId, keyId: 'key_x', createdAt: LONG_AGO });
    // Killed right after step 1 of settle: the record exists, the hold too.
    await insertRawVt(accountId, holdId);

    expect(await store.recoverStaleHolds(cutoff(), new Date())).toMatchObject({ consumed: 1, released: 0 });
    expect(await store.recoverStaleHolds(cutoff(), new Date())).toMatchObject({ consumed: 0, released: 0 });
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 1 });
    expect(await store.listRequestErrors({ accountId, limit: 10 })).toMatchObject({ items: [] });
    await clean(accountId);
  });

  it('a settle that loses the race to a recovery that refunded the hold is refused and leaves no record', async () => {
    const accountId = await account(1);
    const holdId = id('req');
    await store.holdCredit({ id: holdId, accountId, keyId: 'key_x', createdAt: LONG_AGO });
    // The outcome was decided (refunded) by a recoverer that then died.
    await raw.collection('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'refunded', at: new Date() } as never);

    const err = await store.settleHold(vt(accountId, holdId)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('conflict');
    expect(await raw.collection('verify_transactions').countDocuments({ _id: holdId } as never)).toBe(0);

    expect(await store.recoverStaleHolds(cutoff(), new Date())).toMatchObject({ consumed: 0, released: 1 });
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 0 });
    expect((await store.listRequestErrors({ accountId, limit: 10 })).items.map((e) => e.kind)).toEqual(['interrupted']);
    await clean(accountId);
  });

  it('a settle retried after dying mid-way completes without charging twice', async () => {
    const accountId = await account(2);
    const holdId = id('req');
    await store.holdCredit({ id: holdId, accountId, keyId: 'key_x', createdAt: new Date() });
    // Died after steps 1 and 2 (record and outcome), before the account write.
    await insertRawVt(accountId, holdId);
    await raw.collection('hold_outcomes').insertOne({ _id: holdId, accountId, outcome: 'charged', at: new Date() } as never);

    await store.settleHold(vt(accountId, holdId));
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 1 });
    await expect(store.settleHold(vt(accountId, holdId))).rejects.toMatchObject({ code: 'conflict' });
    expect(await balance(accountId)).toEqual({ credits: 1, held: 0, usage: 1 });
    await clean(accountId);
  });

  it('a top-up killed before crediting the account is finished by recovery', async () => {
    const accountId = await account(0);
    const e = entry(accountId, 7, `k-${randomUUID()}`);
    await insertPendingEntry(e);
    // Not counted while the credits are not there: the invariant holds meanwhile.
    await clean(accountId);

    await store.recoverStaleHolds(cutoff(), new Date());
    expect(await balance(accountId)).toEqual({ credits: 7, held: 0, usage: 0 });
    await clean(accountId);
    // The caller's retry with the same key replays the finished entry.
    const retry = await store.applyLedgerEntry({ ...e, id: id('led') });
    expect(retry).toMatchObject({ created: false, entry: { id: e.id }, account: { credits: 7 } });
  });

  it('a top-up killed after crediting, before being marked applied, is counted and never doubled', async () => {
    const accountId = await account(0);
    const e = entry(accountId, 5, `k-${randomUUID()}`);
    await insertPendingEntry(e);
    await creditRaw(e);
    await clean(accountId);

    // The retry finishes it instead of crediting again.
    const retry = await store.applyLedgerEntry({ ...e, id: id('led') });
    expect(retry).toMatchObject({ created: false, account: { credits: 5 } });
    await store.recoverStaleHolds(cutoff(), new Date());
    expect(await balance(accountId)).toEqual({ credits: 5, held: 0, usage: 0 });
    expect((await store.listLedger(accountId, 10)).map((x) => x.delta)).toEqual([5]);
    await clean(accountId);
  });

  it('a top-up without a key that died before crediting is abandoned, so the caller\'s retry credits once', async () => {
    const accountId = await account(0);
    const e = entry(accountId, 100, null);
    await insertPendingEntry(e);
    // The admin saw an error and tries again: a new entry, no key.
    await store.applyLedgerEntry(entry(accountId, 100, null));
    await store.recoverStaleHolds(cutoff(), new Date());
    expect(await balance(accountId)).toEqual({ credits: 100, held: 0, usage: 0 });
    expect((await store.listLedger(accountId, 10)).map((x) => x.delta)).toEqual([100]);
    expect(await raw.collection('credit_ledger').countDocuments({ _id: e.id } as never)).toBe(0);
    await clean(accountId);
  });

  it('a top-up without a key that died after crediting is kept, counted once', async () => {
    const accountId = await account(0);
    const e = entry(accountId, 9, null);
    await insertPendingEntry(e);
    await creditRaw(e);
    await store.recoverStaleHolds(cutoff(), new Date());
    expect(await balance(accountId)).toEqual({ credits: 9, held: 0, usage: 0 });
    expect(await raw.collection('credit_ledger').findOne({ _id: e.id } as never)).toMatchObject({ state: 'applied' });
    await clean(accountId);
  });

  it('prunes applied ids from the account an hour later, and a retry still replays', async () => {
    const accountId = await account(0);
    const e = entry(accountId, 3, `k-${randomUUID()}`);
    await store.applyLedgerEntry(e);
    const ids = async () => ((await raw.collection('accounts').findOne({ _id: accountId } as never)) as unknown as { appliedLedger: string[] }).appliedLedger;
    expect(await ids()).toContain(e.id);
    await store.recoverStaleHolds(cutoff(), new Date(Date.now() + 2 * 60 * 60_000));
    expect(await ids()).not.toContain(e.id);
    expect(await store.applyLedgerEntry({ ...e, id: id('led') })).toMatchObject({ created: false, account: { credits: 3 } });
    expect(await balance(accountId)).toEqual({ credits: 3, held: 0, usage: 0 });
    await clean(accountId);
  });

  it('maps an unreachable server to unavailable, fast', async () => {
    const dead = new MongoStore('mongodb://127.0.0.1:9/slipgate_nowhere?serverSelectionTimeoutMS=300&connectTimeoutMS=300');
    try {
      await expect(dead.migrate()).rejects.toMatchObject({ code: 'unavailable' });
      await expect(dead.getAccount('acc_x')).rejects.toMatchObject({ code: 'unavailable' });
      await expect(dead.holdCredit({ id: 'h', accountId: 'a', keyId: 'k', createdAt: new Date() })).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await dead.close();
    }
  });
});
