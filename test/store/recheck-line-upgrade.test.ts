// Upgrading a database whose re-checks were stored before they named a LINE
// chat: each engine's appended migration gives the re-checks already kept
// `lineChannelId` and `lineUserId` null (kept from an API key, not a chat),
// read the same through the store and through the engine's own driver, and
// the re-check is worked on as before.
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
import { sqliteRow } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 10, 1);
const COLUMNS = 'id, account_id, key_id, request_id, payment_request_id, qrcode, sending_bank, trans_ref, options, created_at, deadline, next_attempt_at, attempts';

async function expectUpgraded(store: Store): Promise<void> {
  expect(await store.getRecheck('req_old')).toMatchObject({ id: 'req_old', keyId: 'key_old', lineChannelId: null, lineUserId: null, outcome: null });
  expect(await store.finishRecheck('req_old', { outcome: 'unconfirmed', at: new Date(T0 + 700_000) })).toBe(true);
  expect(await store.getRecheck('req_old')).toMatchObject({ outcome: 'unconfirmed', lineUserId: null });
}

describe('re-checks named no LINE chat before this upgrade', () => {
  it('sqlite: the added columns read null', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'old.db');
      const db = sqliteBefore(file, SQLITE_MIGRATIONS, 'line_channel_id', T0);
      db.prepare("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', ?)").run(T0);
      db.prepare(`INSERT INTO rechecks (${COLUMNS}) VALUES ('req_old', 'acc_old', 'key_old', 'req_x', NULL, 'qr', '004', 'REF1', NULL, ?, ?, ?, 0)`).run(T0, T0 + 600_000, T0 + 15_000);
      db.close();
      const store = new SqliteStore(file);
      await store.migrate();
      expect(sqliteRow(file, "SELECT line_channel_id, line_user_id FROM rechecks WHERE id = 'req_old'")).toEqual({ line_channel_id: null, line_user_id: null });
      await expectUpgraded(store);
      await store.close();
    } finally {
      dir.remove();
    }
  });

  it('postgres: the added columns read null', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await postgresBefore(client, PG_MIGRATIONS, 'line_channel_id');
      await client.query("INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', $1)", [new Date(T0)]);
      await client.query(`INSERT INTO rechecks (${COLUMNS}) VALUES ('req_old', 'acc_old', 'key_old', 'req_x', NULL, 'qr', '004', 'REF1', NULL, $1, $2, $3, 0)`, [
        new Date(T0),
        new Date(T0 + 600_000),
        new Date(T0 + 15_000),
      ]);
      const store = new PostgresStore(database.url);
      await store.migrate();
      expect((await client.query("SELECT line_channel_id, line_user_id FROM rechecks WHERE id = 'req_old'")).rows).toEqual([{ line_channel_id: null, line_user_id: null }]);
      await expectUpgraded(store);
      await store.close();
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('mongo: migrate() sets both null on documents without them, and again is a no-op', async () => {
    const database = createMongoDatabase();
    const raw = new mongoose.mongo.MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
    await raw.connect();
    try {
      const db = raw.db(database.name);
      await db.collection('accounts').insertOne({ _id: 'acc_old', name: 'Old', credits: 0, createdAt: new Date(T0) } as never);
      await db.collection('rechecks').insertOne({
        _id: 'req_old', accountId: 'acc_old', keyId: 'key_old', requestId: 'req_x', paymentRequestId: null, qrcode: 'qr', sendingBank: '004', transRef: 'REF1', options: null,
        createdAt: new Date(T0), deadline: new Date(T0 + 600_000), nextAttemptAt: new Date(T0 + 15_000), attempts: 0, attemptId: null, outcome: null, finishedAt: null, result: null,
      } as never);
      const store = new MongoStore(database.url);
      await store.migrate();
      const stored = async () => db.collection('rechecks').findOne({ _id: 'req_old' as never }, { projection: { _id: 0, lineChannelId: 1, lineUserId: 1 } });
      expect(await stored()).toEqual({ lineChannelId: null, lineUserId: null });
      await expectUpgraded(store);
      await store.migrate();
      expect(await stored()).toEqual({ lineChannelId: null, lineUserId: null });
      await store.close();
    } finally {
      await raw.close();
      await database.drop();
    }
  });
});
