// Upgrading a database made before payment requests kept their own target:
// each engine's migration back-fills a request's target from its receiver
// where the receiver still exists, and leaves it empty (null) where it was
// removed before the upgrade. Requests made after carry theirs from the start.
import mongoose from 'mongoose';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/domain/ports/store.js';
import type { PaymentTarget } from '../../src/domain/payments/types.js';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createMongoDatabase } from '../helpers/mongo.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { postgresBefore, sqliteBefore } from '../helpers/old-schema.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 9, 1);
const KEPT: PaymentTarget = { kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: 'ร้านกาแฟ ดีดี', nameEn: null };

async function expectBackfilled(store: Store): Promise<void> {
  expect((await store.getPaymentRequest('pr_kept'))?.target).toEqual(KEPT);
  expect((await store.getPaymentRequest('pr_orphan'))?.target).toBeNull();
}

describe('payment request targets on upgrade', () => {
  it('sqlite: back-filled from the receiver where it still exists', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'old.db');
      const db = sqliteBefore(file, SQLITE_MIGRATIONS, 'target_kind', T0);
      db.prepare("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', ?)").run(T0);
      db.prepare("INSERT INTO receivers (id, account_id, kind, number, proxy_type, name_th, created_at) VALUES ('rcv_kept', 'acc_old', 'promptpay', '0812345678', 'MSISDN', 'ร้านกาแฟ ดีดี', ?)").run(T0);
      const insert = db.prepare(`INSERT INTO payment_requests (id, account_id, receiver_id, reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at)
        VALUES (?, 'acc_old', ?, ?, 25000, 25000, 0, 'qr', 'pending', ?, ?)`);
      insert.run('pr_kept', 'rcv_kept', 'order-1', T0, T0 + 1_800_000);
      insert.run('pr_orphan', 'rcv_removed', 'order-2', T0, T0 + 1_800_000);
      db.close();
      const store = new SqliteStore(file);
      await store.migrate();
      await expectBackfilled(store);
      await store.close();
    } finally {
      dir.remove();
    }
  });

  it('postgres: back-filled from the receiver where it still exists', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await postgresBefore(client, PG_MIGRATIONS, 'target_kind');
      const at = new Date(T0);
      await client.query("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', $1)", [at]);
      await client.query("INSERT INTO receivers (id, account_id, kind, number, proxy_type, name_th, created_at) VALUES ('rcv_kept', 'acc_old', 'promptpay', '0812345678', 'MSISDN', 'ร้านกาแฟ ดีดี', $1)", [at]);
      for (const [id, receiverId, reference] of [['pr_kept', 'rcv_kept', 'order-1'], ['pr_orphan', 'rcv_removed', 'order-2']]) {
        await client.query(
          `INSERT INTO payment_requests (id, account_id, receiver_id, reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at)
           VALUES ($1, 'acc_old', $2, $3, 25000, 25000, false, 'qr', 'pending', $4, $5)`,
          [id, receiverId, reference, at, new Date(T0 + 1_800_000)],
        );
      }
      const store = new PostgresStore(database.url);
      await store.migrate();
      await expectBackfilled(store);
      await store.close();
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('mongo: migrate() back-fills, and again is a no-op', async () => {
    const database = createMongoDatabase();
    const raw = new mongoose.mongo.MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
    await raw.connect();
    try {
      const db = raw.db(database.name);
      const at = new Date(T0);
      await db.collection('receivers').insertOne({ _id: 'rcv_kept', accountId: 'acc_old', kind: 'promptpay', bankCode: null, number: '0812345678', proxyType: 'MSISDN', nameTh: 'ร้านกาแฟ ดีดี', nameEn: null, label: null, active: true, createdAt: at } as never);
      const old = (id: string, receiverId: string, reference: string) => ({
        _id: id, accountId: 'acc_old', receiverId, reference, amount: 25_000, requestedAmount: 25_000, uniqueAmount: false, promptpay: 'qr', status: 'pending',
        createdAt: at, expiresAt: new Date(T0 + 1_800_000), paidAt: null, paidBy: null, closedAt: null,
      });
      await db.collection('payment_requests').insertMany([old('pr_kept', 'rcv_kept', 'order-1'), old('pr_orphan', 'rcv_removed', 'order-2')] as never[]);
      const store = new MongoStore(database.url);
      await store.migrate();
      await expectBackfilled(store);
      // The receiver removed after the upgrade: the request keeps what it was made for.
      await store.deleteReceiver('rcv_kept');
      await store.migrate();
      await expectBackfilled(store);
      await store.close();
    } finally {
      await raw.close();
      await database.drop();
    }
  });
});
