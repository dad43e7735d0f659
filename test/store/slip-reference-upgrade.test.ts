// Upgrading a database whose slips were stored under their QR's own
// spelling (issue 61, item 1): each engine's appended migration gives the
// records already kept the slip's identity, its reference in upper case, so
// a lower-case verification, failure, re-check and paid request are found
// by the parsed QR after the upgrade. Two requests paid before it by two
// spellings of one transfer cannot both take the identity (a slip pays one
// request): the first paid does, the other keeps its own spelling, and the
// migration does not fail on the unique rule.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createMongoDatabase } from '../helpers/mongo.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { postgresBefore, sqliteBefore } from '../helpers/old-schema.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 10, 1);
const MARKER = 'upper(transaction_id)';
/** One transfer, three spellings: the identity and two a re-cased QR wrote. */
const IDENTITY = 'KMA240621180747WMUERVZJTN';
const WRITTEN = 'KMA240621180747wmUervZjtn';
const RECASED = 'kma240621180747WMuERVzJTN';
const ALONE = 'sbx0000010000sabc';

const VT = 'id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at';
const RE = 'id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, created_at';
const RC = 'id, account_id, key_id, request_id, payment_request_id, qrcode, sending_bank, trans_ref, options, created_at, deadline, next_attempt_at, attempts';
const PR =
  'id, account_id, receiver_id, reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, paid_at, paid_verification_id, paid_transaction_id, paid_sending_bank, paid_amount, paid_transferred_at';

/** The old rows, as [table, columns, values] with times as ms and booleans as 0/1; each engine converts. */
function oldRows(time: (ms: number) => unknown, bool: (b: boolean) => unknown): [string, string, unknown[]][] {
  const paid = (id: string, ref: string, reference: string, at: number): [string, string, unknown[]] => [
    'payment_requests',
    PR,
    [id, 'acc_old', 'rcv_old', reference, 25_000, 25_000, bool(false), '0812345678', 'paid', time(T0), time(T0 + 3_600_000), time(at), `vt_${id}`, ref, '025', 25_000, time(at)],
  ];
  return [
    ['verify_transactions', VT, ['vt_old', 'acc_old', 'key_old', 'req_vt', 'qr', WRITTEN, 250, '025', '014', 'sandbox', 5, JSON.stringify({ transactionId: WRITTEN }), time(T0)]],
    ['request_errors', RE, ['re_old', 'acc_old', 'key_old', 'req_re', 'qr', RECASED, '025', 'slip_not_found', 'slip not found', time(T0)]],
    ['rechecks', RC, ['rc_old', 'acc_old', 'key_old', 'req_rc', null, 'qr', '025', RECASED, null, time(T0), time(T0 + 600_000), time(T0 + 15_000), 0]],
    // Paid second by the re-cased spelling, written first here so that the order rows are read in decides nothing.
    paid('pr_second', RECASED, 'order-b', T0 + 2_000),
    paid('pr_first', WRITTEN, 'order-a', T0 + 1_000),
    paid('pr_alone', ALONE, 'order-c', T0 + 3_000),
  ];
}

/** What the store finds by the slip's identity after the upgrade. */
async function expectFoundByIdentity(store: Store): Promise<void> {
  const verified = await store.listVerifyTransactions({ accountId: 'acc_old', transactionId: IDENTITY, sendingBank: '025', limit: 10 });
  expect(verified.items.map((r) => r.id)).toEqual(['vt_old']);
  const failed = await store.listRequestErrors({ accountId: 'acc_old', transactionId: IDENTITY, limit: 10 });
  expect(failed.items.map((r) => r.id)).toEqual(['re_old']);
  const open = await store.openRechecks({ accountId: 'acc_old', slip: { transRef: IDENTITY, sendingBank: '025' }, limit: 10 });
  expect(open.map((r) => r.id)).toEqual(['rc_old']);
}

const EXPECTED_PAID = { pr_first: IDENTITY, pr_second: RECASED, pr_alone: ALONE.toUpperCase() };

describe('slips stored under their QR\u2019s spelling before this upgrade', () => {
  it('sqlite: the migration upper-cases every reference, the second payment of one transfer keeps its own', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'old.db');
      const db = sqliteBefore(file, SQLITE_MIGRATIONS, MARKER, T0);
      db.prepare("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', ?)").run(T0);
      for (const [table, columns, values] of oldRows((ms) => ms, (b) => (b ? 1 : 0))) {
        db.prepare(`INSERT INTO ${table} (${columns}) VALUES (${values.map(() => '?').join(', ')})`).run(...values);
      }
      db.close();
      const store = new SqliteStore(file);
      await store.migrate();
      const raw = new Database(file, { readonly: true });
      const paid = raw.prepare('SELECT id, paid_transaction_id FROM payment_requests').all() as { id: string; paid_transaction_id: string }[];
      raw.close();
      expect(Object.fromEntries(paid.map((r) => [r.id, r.paid_transaction_id]))).toEqual(EXPECTED_PAID);
      await expectFoundByIdentity(store);
      await store.close();
    } finally {
      dir.remove();
    }
  });

  it('postgres: the migration upper-cases every reference, the second payment of one transfer keeps its own', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await postgresBefore(client, PG_MIGRATIONS, MARKER);
      await client.query("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', $1)", [new Date(T0)]);
      for (const [table, columns, values] of oldRows((ms) => new Date(ms), (b) => b)) {
        await client.query(`INSERT INTO ${table} (${columns}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
      }
      const store = new PostgresStore(database.url);
      await store.migrate();
      const { rows } = await client.query<{ id: string; paid_transaction_id: string }>('SELECT id, paid_transaction_id FROM payment_requests');
      expect(Object.fromEntries(rows.map((r) => [r.id, r.paid_transaction_id]))).toEqual(EXPECTED_PAID);
      await expectFoundByIdentity(store);
      await store.close();
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('mongo: migrate() upper-cases every reference and moves the claim, the second payment keeps its own; again is a no-op', async () => {
    const database = createMongoDatabase();
    const raw = new mongoose.mongo.MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
    await raw.connect();
    try {
      const db = raw.db(database.name);
      const at = (ms: number) => new Date(ms);
      await db.collection('accounts').insertOne({ _id: 'acc_old', name: 'Old', credits: 0, createdAt: at(T0) } as never);
      await db.collection('verify_transactions').insertOne({
        _id: 'vt_old', accountId: 'acc_old', keyId: 'key_old', requestId: 'req_vt', qrcode: 'qr', transactionId: WRITTEN, amount: 250, sendingBank: '025', receivingBank: '014',
        upstream: 'sandbox', latencyMs: 5, response: { transactionId: WRITTEN }, createdAt: at(T0),
      } as never);
      await db.collection('request_errors').insertOne({
        _id: 're_old', accountId: 'acc_old', keyId: 'key_old', requestId: 'req_re', qrcode: 'qr', transactionId: RECASED, sendingBank: '025', kind: 'slip_not_found',
        message: 'slip not found', upstream: null, latencyMs: null, createdAt: at(T0),
      } as never);
      await db.collection('rechecks').insertOne({
        _id: 'rc_old', accountId: 'acc_old', keyId: 'key_old', requestId: 'req_rc', paymentRequestId: null, qrcode: 'qr', sendingBank: '025', transRef: RECASED, options: null,
        createdAt: at(T0), deadline: at(T0 + 600_000), nextAttemptAt: at(T0 + 15_000), attempts: 0, attemptId: null, outcome: null, finishedAt: null, result: null, lineChannelId: null, lineUserId: null,
      } as never);
      const paid = (id: string, ref: string, reference: string, ms: number) => ({
        _id: id, accountId: 'acc_old', receiverId: 'rcv_old', target: null, successUrl: null, reference, amount: 25_000, requestedAmount: 25_000, uniqueAmount: false,
        promptPay: '0812345678', status: 'paid', createdAt: at(T0), expiresAt: at(T0 + 3_600_000), paidAt: at(ms),
        paidBy: { verificationId: `vt_${id}`, transactionId: ref, sendingBank: '025', amount: 25_000, transferredAt: at(ms) }, closedAt: null,
      });
      await db.collection('payment_requests').insertMany([paid('pr_second', RECASED, 'order-b', T0 + 2_000), paid('pr_first', WRITTEN, 'order-a', T0 + 1_000), paid('pr_alone', ALONE, 'order-c', T0 + 3_000)] as never);
      const claim = (ref: string, requestId: string, ms: number) => ({ _id: JSON.stringify(['025', ref]), requestId, at: at(ms) });
      await db.collection('payment_slips').insertMany([claim(RECASED, 'pr_second', T0 + 2_000), claim(WRITTEN, 'pr_first', T0 + 1_000), claim(ALONE, 'pr_alone', T0 + 3_000)] as never);

      const store = new MongoStore(database.url);
      const stored = async () => {
        const requests = await db.collection('payment_requests').find({}, { projection: { 'paidBy.transactionId': 1 } }).toArray();
        const claims = await db.collection('payment_slips').find({}).toArray();
        return {
          paid: Object.fromEntries(requests.map((r) => [r._id, (r.paidBy as { transactionId: string }).transactionId])),
          claims: Object.fromEntries(claims.map((c) => [c._id as unknown as string, c.requestId as string])),
        };
      };
      const upgraded = {
        paid: EXPECTED_PAID,
        claims: { [JSON.stringify(['025', IDENTITY])]: 'pr_first', [JSON.stringify(['025', RECASED])]: 'pr_second', [JSON.stringify(['025', ALONE.toUpperCase()])]: 'pr_alone' },
      };
      await store.migrate();
      expect(await stored()).toEqual(upgraded);
      await expectFoundByIdentity(store);
      await store.migrate();
      expect(await stored()).toEqual(upgraded);
      await store.close();
    } finally {
      await raw.close();
      await database.drop();
    }
  });
});
