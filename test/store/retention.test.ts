// Personal data retention and erasure, the same cases on every engine, with
// an injected clock (the pass's `now` and the records' times are given, not
// read from the wall). What is left of each record is read through the
// engine's own driver (test/helpers/raw-records.ts), not through slipgate.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storeServices } from '../../src/compose-store.js';
import { newId } from '../../src/domain/keys/api-key.js';
import { duplicateHistory } from '../../src/domain/checks/duplicate-history.js';
import type { Store } from '../../src/domain/ports/store.js';
import { reconcileAccount } from '../../src/domain/accounts/reconcile.js';
import { redactPersonalData } from '../../src/domain/personal-data/redaction.js';
import { removePersonalData, retentionCutoff } from '../../src/domain/personal-data/retention.js';
import type { VerifyTransactionRecord } from '../../src/domain/types.js';
import { openStore } from '../../src/store/open.js';
import { slipQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { testEngines } from '../helpers/engines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { openRawRecords, type RawRecords } from '../helpers/raw-records.js';
import {  } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { PERSONAL, personalSlip } from './personal-slip.js';

const DAY = 86_400_000;
/** The injected clock: every pass below runs "now" at this instant. */
const NOW = new Date('2026-06-01T00:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const PERIOD_DAYS = 365;
const CUTOFF = retentionCutoff(NOW, PERIOD_DAYS);
/** Every engine here lets the pass clear its files (SQLite: WAL truncated; PostgreSQL: VACUUM; the test MongoDB server: compact). */
const PURGED = { complete: true, detail: expect.any(String) };

/** Everything in a bank answer that names a person or an account. */
describe.each(testEngines())('personal data retention and erasure: %s', (engine) => {
  let url: string;
  let store: Store;
  let raw: RawRecords;

  beforeEach(async () => {
    url = await engine.databaseUrl();
    store = await openStore(url);
    raw = await openRawRecords(url);
  });
  afterEach(async () => {
    await raw?.close();
    await store?.close();
  });
  afterAll(() => engine.dispose());

  async function account(credits: number): Promise<string> {
    const acc = await store.createAccount({ id: newId('acc'), name: 'ร้านกาแฟ ดีดี', createdAt: ago(500 * DAY) });
    await store.applyLedgerEntry({ id: newId('led'), accountId: acc.id, kind: 'initial', delta: credits, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: ago(500 * DAY) });
    return acc.id;
  }

  /** A charged verification recorded at `createdAt`, through the store's own hold and settle. */
  async function verified(accountId: string, createdAt: Date, over: Partial<VerifyTransactionRecord> = {}): Promise<VerifyTransactionRecord> {
    const id = newId('req');
    const transactionId = over.transactionId ?? `TX${id.slice(-12).toUpperCase()}`;
    await store.holdCredit({ id, accountId, keyId: 'key_test', createdAt: new Date(), instanceId: null });
    const record: VerifyTransactionRecord = {
      id,
      accountId,
      keyId: 'key_test',
      requestId: id,
      qrcode: slipQr('004', transactionId),
      transactionId,
      amount: 250.5,
      sendingBank: '004',
      receivingBank: '014',
      upstream: 'kbank-a',
      latencyMs: 42,
      response: personalSlip(transactionId, 250.5),
      createdAt,
      ...over,
    };
    await store.settleHold(record);
    return record;
  }

  async function failed(accountId: string | null, createdAt: Date): Promise<string> {
    const id = newId('req');
    await store.insertRequestError({ id, accountId, keyId: null, requestId: id, qrcode: slipQr('004', 'TXFAILED1'), transactionId: 'TXFAILED1', sendingBank: '004', kind: 'slip_not_found', message: 'slip not found', upstream: 'kbank-a', latencyMs: 9, createdAt });
    return id;
  }

  /** Two accounts with records on both sides of the cutoff (CUTOFF itself is inside the period). */
  async function seed() {
    const a = await account(10);
    const b = await account(10);
    const old = [
      await verified(a, ago(400 * DAY)),
      await verified(a, ago(366 * DAY), { qrcode: 'NAME:SOMCHAI JAIDEE;ACC:1234' }),
      await verified(b, new Date(CUTOFF.getTime() - 1)),
    ];
    const recent = [await verified(a, CUTOFF), await verified(a, ago(DAY)), await verified(b, ago(10 * DAY))];
    const oldFailures = [await failed(a, ago(400 * DAY)), await failed(null, ago(366 * DAY))];
    const recentFailures = [await failed(a, ago(DAY)), await failed(b, ago(10 * DAY)), await failed(null, CUTOFF)];
    await store.insertAdminEvent({ id: newId('evt'), actor: 'cli:test', action: 'topUpCredits', targetId: a, reason: 'old', details: { name: 'ร้านกาแฟ ดีดี' }, createdAt: ago(400 * DAY) });
    return { a, b, old, recent, oldFailures, recentFailures };
  }

  it('redacts exactly the records older than the period, deletes exactly the old failures, and touches nothing else', async () => {
    const s = await seed();
    const before = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    const books = await raw.untouchable();

    // Batches of 2: the pass must go on until nothing is left, not stop after one.
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, batchSize: 2 })).toEqual({ redacted: 3, deleted: 2, rechecks: 0, dryRun: false, purge: PURGED });

    const after = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    expect(after.size).toBe(6);
    for (const record of s.old) {
      const stored = after.get(record.id)!;
      const was = before.get(record.id)!;
      expect(stored.redactedAt?.toISOString()).toBe(NOW.toISOString());
      // What the books, usage, duplicate detection and disputes need stays, exactly.
      const { qrcode: _q, response: _r, redactedAt: _d, ...footprint } = stored;
      const { qrcode: _wq, response: _wr, redactedAt: _wd, ...wasFootprint } = was;
      expect(footprint).toEqual(wasFootprint);
      expect(stored.response).toMatchObject({ amount: 250.5, transactionId: record.transactionId, dateTime: record.response.dateTime, senderBankCode: '004', receiverBankCode: '014', rawData: {} });
      // What identifies people is gone, wherever it was (names, accounts, proxies, rawData).
      const text = JSON.stringify(stored);
      for (const personal of PERSONAL) expect(text).not.toContain(personal);
    }
    // The slip QR names only the bank and the reference: kept. The other QR text carried a name: gone.
    expect(after.get(s.old[0]!.id)!.qrcode).toBe(s.old[0]!.qrcode);
    expect(after.get(s.old[1]!.id)!.qrcode).toBe('');
    for (const record of s.recent) expect(after.get(record.id)).toEqual(before.get(record.id));

    expect(await raw.requestErrorIds()).toEqual([...s.recentFailures].sort());
    expect(await raw.untouchable()).toBe(books);

    // Through the store: the redaction shows, the books reconcile, the old slip is still a duplicate.
    const listed = await store.listVerifyTransactions({ accountId: s.a, limit: 10 });
    expect(listed.items.filter((r) => r.redactedAt).map((r) => r.id).sort()).toEqual([s.old[0]!.id, s.old[1]!.id].sort());
    for (const id of [s.a, s.b]) expect((await reconcileAccount(store, id)).problems).toEqual([]);
    expect(await reconcileAccount(store, s.a)).toMatchObject({ usage: 4, verifyTransactions: 4, credits: 6, ledgerTotal: 10 });
    const oldest = s.old[0]!;
    expect(await duplicateHistory(store, { accountId: s.a, transactionId: oldest.transactionId, sendingBank: '004', excludeId: 'req_now' })).toEqual({
      count: 1,
      firstVerifiedAt: oldest.createdAt,
    });

    // A second pass finds nothing more (and still purges: an earlier purge may not have finished).
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: new Date(NOW.getTime() + 1000) })).toEqual({ redacted: 0, deleted: 0, rechecks: 0, dryRun: false, purge: PURGED });
    expect((await raw.verifyTransactions()).find((r) => r.id === oldest.id)!.redactedAt?.toISOString()).toBe(NOW.toISOString());
  });

  it('a dry run reports the counts and changes nothing', async () => {
    const s = await seed();
    const records = JSON.stringify(await raw.verifyTransactions());
    const failures = await raw.requestErrorIds();
    const books = await raw.untouchable();
    expect(await removePersonalData(store, { createdBefore: CUTOFF }, { now: NOW, dryRun: true })).toEqual({ redacted: 3, deleted: 2, rechecks: 0, dryRun: true });
    expect(await removePersonalData(store, { accountId: s.b }, { now: NOW, dryRun: true })).toEqual({ redacted: 2, deleted: 1, rechecks: 0, dryRun: true });
    expect(JSON.stringify(await raw.verifyTransactions())).toBe(records);
    expect(await raw.requestErrorIds()).toEqual(failures);
    expect(await raw.untouchable()).toBe(books);
  });

  it("erasure redacts every record of one account whatever its age, deletes its failures, and leaves the others' alone", async () => {
    const s = await seed();
    const before = new Map((await raw.verifyTransactions()).map((r) => [r.id, r]));
    const books = await raw.untouchable();
    expect(await removePersonalData(store, { accountId: s.a }, { now: NOW, batchSize: 3 })).toEqual({ redacted: 4, deleted: 2, rechecks: 0, dryRun: false, purge: PURGED });

    for (const r of await raw.verifyTransactions()) {
      if (r.accountId === s.a) {
        expect(r.redactedAt?.toISOString()).toBe(NOW.toISOString());
        for (const personal of PERSONAL) expect(JSON.stringify(r)).not.toContain(personal);
        expect(r.amount).toBe(250.5);
      } else {
        expect(r).toEqual(before.get(r.id));
      }
    }
    const bFailure = s.recentFailures[1]!;
    const noAccount = [s.oldFailures[1]!, s.recentFailures[2]!];
    expect(await raw.requestErrorIds()).toEqual([bFailure, ...noAccount].sort());
    expect(await raw.untouchable()).toBe(books);
    for (const id of [s.a, s.b]) expect((await reconcileAccount(store, id)).problems).toEqual([]);
  });

  it('each batch starts strictly after the cursor it is given, in (createdAt, id) order, ties included', async () => {
    const a = await account(10);
    const at = (days: number) => ago(days * DAY);
    // Two records share a millisecond: the id orders them.
    const [r1, t1, t2, r4, r5] = [await verified(a, at(50)), await verified(a, at(40)), await verified(a, at(40)), await verified(a, at(30)), await verified(a, at(20))];
    const [tieFirst, tieSecond] = [t1, t2].sort((x, y) => (x.id < y.id ? -1 : 1)) as [VerifyTransactionRecord, VerifyTransactionRecord];
    const cursorOf = (r: { id: string; createdAt: Date }) => ({ createdAt: r.createdAt, id: r.id });
    const redactedIds = async () => (await raw.verifyTransactions()).filter((r) => r.redactedAt).map((r) => r.id).sort();

    const scope = { accountId: a };
    const first = await store.redactVerifyTransactions(scope, redactPersonalData, NOW, { limit: 2, after: cursorOf(tieFirst) });
    expect(first).toEqual({ changed: 2, last: cursorOf(r4) });
    // Nothing at or before the cursor was read, though it was not redacted.
    expect(await redactedIds()).toEqual([tieSecond.id, r4.id].sort());
    expect(await store.redactVerifyTransactions(scope, redactPersonalData, NOW, { limit: 2, after: first.last })).toEqual({ changed: 1, last: cursorOf(r5) });
    expect(await store.redactVerifyTransactions(scope, redactPersonalData, NOW, { limit: 2, after: cursorOf(r5) })).toEqual({ changed: 0, last: null });
    // From the start: what the account's batches passed over, before their first cursor.
    expect(await store.redactVerifyTransactions({ createdBefore: at(35) }, redactPersonalData, NOW, { limit: 5, after: null })).toEqual({ changed: 2, last: cursorOf(tieFirst) });
    expect(await redactedIds()).toEqual([r1.id, tieFirst.id, tieSecond.id, r4.id, r5.id].sort());

    const failures = [await failed(a, at(50)), await failed(a, at(40)), await failed(a, at(40)), await failed(a, at(30))];
    const [f1, fTieFirst, , f4] = [failures[0]!, ...[failures[1]!, failures[2]!].sort(), failures[3]!];
    const deleted = await store.deleteRequestErrors({ createdBefore: at(25) }, { limit: 2, after: { createdAt: at(40), id: fTieFirst } });
    expect(deleted).toEqual({ changed: 2, last: { createdAt: at(30), id: f4 } });
    expect(await raw.requestErrorIds()).toEqual([f1, fTieFirst].sort());
    expect(await store.deleteRequestErrors(scope, { limit: 10, after: deleted.last })).toEqual({ changed: 0, last: null });
  });

  it('names the live lease with the smallest id as the one to run retention', async () => {
    expect(await store.firstLiveLease(new Date())).toBeNull();
    // Ids of one millisecond tie on time and order by their random part: every instance still agrees.
    const [first, second] = [newId('ins'), newId('ins')].sort() as [string, string];
    await store.startLease(second, 60_000, new Date());
    await store.startLease(first, 60_000, new Date());
    expect(await store.firstLiveLease(new Date())).toBe(first);
    await raw.expireLease(first);
    expect(await store.firstLiveLease(new Date())).toBe(second);
    await store.endLease(second);
    expect(await store.firstLiveLease(new Date())).toBeNull();
  });
});

describe('the PostgreSQL pass ends with a VACUUM of the redacted tables', () => {
  let database: TestDatabase;
  let store: Store;
  let client: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore(database.url);
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
    await database?.drop();
  });

  /** The table's statistics as the server sees them now (not this session's cached snapshot). */
  async function stats(table: string): Promise<{ last_vacuum: Date | null; n_dead_tup: number }> {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query('SELECT last_vacuum, n_dead_tup::int AS n_dead_tup FROM pg_stat_user_tables WHERE relname = $1', [table]);
    return rows[0];
  }

  it('leaves no dead row versions of the redacted records in the heap', async () => {
    const acc = await store.createAccount({ id: newId('acc'), name: 'Shop', createdAt: NOW });
    await store.applyLedgerEntry({ id: newId('led'), accountId: acc.id, kind: 'initial', delta: 50, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: NOW });
    for (let i = 0; i < 50; i++) {
      const id = newId('req');
      await store.holdCredit({ id, accountId: acc.id, keyId: 'key_test', createdAt: NOW, instanceId: null });
      await store.settleHold({ id, accountId: acc.id, keyId: 'key_test', requestId: id, qrcode: 'NAME:SOMCHAI', transactionId: `TXV${i}`, amount: 1, sendingBank: '004', receivingBank: '014', upstream: 'sandbox', latencyMs: 1, response: personalSlip(`TXV${i}`, 1), createdAt: ago(i) });
    }
    expect((await stats('verify_transactions')).last_vacuum).toBeNull();

    expect(await removePersonalData(store, { accountId: acc.id }, { now: NOW, batchSize: 20 })).toMatchObject({ redacted: 50, purge: { complete: true } });
    // VACUUM reports its statistics when it ends; the poll only waits for them to be published.
    let after = await stats('verify_transactions');
    for (let i = 0; i < 100 && after.last_vacuum === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await stats('verify_transactions');
    }
    expect(after.last_vacuum).toBeInstanceOf(Date);
    expect(after.n_dead_tup).toBe(0);
    expect((await stats('request_errors')).last_vacuum).toBeInstanceOf(Date);
    expect((await stats('rechecks')).last_vacuum).toBeInstanceOf(Date);
  });
});

describe('the SQLite pass ends with a checkpoint that truncates the WAL', () => {
  const dir = tempDir();
  const file = join(dir.path, 'wal.db');
  let store: Store;
  beforeAll(async () => {
    store = await openStore(`sqlite:${file}`);
  });
  afterAll(async () => {
    await store?.close();
    dir.remove();
  });

  it('reports a WAL another connection keeps in use, and truncates it once free', async () => {
    const acc = await store.createAccount({ id: newId('acc'), name: 'Shop', createdAt: NOW });
    await store.applyLedgerEntry({ id: newId('led'), accountId: acc.id, kind: 'initial', delta: 5, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: NOW });
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);

    // A reader in the middle of a read transaction (another worker, a CLI) pins the WAL:
    // a handle of its own, held open across the erasure, which sqliteRows never is.
    const reader = new Database(file, { readonly: true });
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM accounts').get();
      // An erasure still succeeds, says so, and its admin event keeps it for the audit trail.
      const { admin } = storeServices(store);
      const erased = await admin.erasePersonalData('cli:test', acc.id, 'PDPA request #99');
      const busy = { complete: false, detail: expect.stringMatching(/^WAL not truncated: another connection kept it in use/) };
      expect(erased.purge).toEqual(busy);
      const [event] = (await store.listAdminEvents({ targetId: acc.id, limit: 1 })).items;
      expect(event?.details).toEqual({ redactedVerifications: 0, deletedFailures: 0, redactedRechecks: 0, filesNotCleared: busy.detail });
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
    // The store still writes, and the next purge finishes.
    await store.applyLedgerEntry({ id: newId('led'), accountId: acc.id, kind: 'top_up', delta: 1, reason: 'test', actor: 'test', idempotencyKey: null, createdAt: NOW });
    expect(await store.purgeRemovedData()).toEqual({ complete: true, detail: expect.stringMatching(/^WAL checkpointed and truncated/) });
    expect(statSync(`${file}-wal`).size).toBe(0);
    expect((await store.getAccount(acc.id))?.credits).toBe(6);
  });
});
