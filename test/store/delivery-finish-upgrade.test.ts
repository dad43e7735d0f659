// Upgrading a database with webhook history: deliveries that finished before
// the finish time existed get one (their delivery, else their last due time),
// so the retention pass can delete them; pending ones get none. Each engine
// is upgraded by its own migration, and read back through its raw driver.
import mongoose from 'mongoose';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MongoStore } from '../../src/store/mongo/mongo-store.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createMongoDatabase } from '../helpers/mongo.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { postgresBefore, sqliteBefore } from '../helpers/old-schema.js';
import { sqliteRows } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';

const DELIVERED_AT = Date.UTC(2026, 0, 5);
const DUE_AT = Date.UTC(2026, 0, 4);
/** delivered: finished when delivered; failed: at its last due time; pending: not finished. */
const HISTORY = [
  { id: 'whd_delivered', state: 'delivered', next: Date.UTC(2026, 0, 1), delivered: DELIVERED_AT, finished: DELIVERED_AT },
  { id: 'whd_failed', state: 'failed', next: DUE_AT, delivered: null, finished: DUE_AT },
  { id: 'whd_pending', state: 'pending', next: DUE_AT, delivered: null, finished: null },
] as const;

describe('upgrade: finished webhook deliveries get their finish time', () => {
  const dir = tempDir();
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => {});
    dir.remove();
  });

  it('sqlite', async () => {
    const file = join(dir.path, 'old.db');
    const db = sqliteBefore(file, SQLITE_MIGRATIONS, 'webhook_deliveries_finished');
    const insert = db.prepare(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, type, body, state, next_attempt_at, delivered_at, created_at) VALUES (?, ?, 'whe_1', 'acc_1', 'verification.succeeded', '{}', ?, ?, ?, ?)`);
    for (const h of HISTORY) insert.run(h.id, `evt_${h.id}`, h.state, h.next, h.delivered, Date.UTC(2026, 0, 1));
    db.close();
    await new SqliteStore(file).close();
    expect(sqliteRows(file, 'SELECT id, finished_at FROM webhook_deliveries ORDER BY id')).toEqual(
      [...HISTORY].sort((a, b) => (a.id < b.id ? -1 : 1)).map((h) => ({ id: h.id, finished_at: h.finished })),
    );
  });

  it('postgres', { timeout: 60_000 }, async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    await postgresBefore(client, PG_MIGRATIONS, 'webhook_deliveries_finished');
    for (const h of HISTORY) {
      await client.query(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, type, body, state, next_attempt_at, delivered_at, created_at) VALUES ($1, $2, 'whe_1', 'acc_1', 'verification.succeeded', '{}', $3, $4, $5, $6)`,
        [h.id, `evt_${h.id}`, h.state, new Date(h.next), h.delivered === null ? null : new Date(h.delivered), new Date(Date.UTC(2026, 0, 1))],
      );
    }
    const store = new PostgresStore(database.url);
    await store.migrate();
    await store.close();
    const { rows } = await client.query<{ id: string; finished_at: Date | null }>('SELECT id, finished_at FROM webhook_deliveries ORDER BY id COLLATE "C"');
    expect(rows.map((r) => ({ id: r.id, finished: r.finished_at?.getTime() ?? null }))).toEqual(
      [...HISTORY].sort((a, b) => (a.id < b.id ? -1 : 1)).map((h) => ({ id: h.id, finished: h.finished })),
    );
  });

  it('mongodb', { timeout: 60_000 }, async () => {
    const database = createMongoDatabase();
    cleanup.push(() => database.drop());
    const client = new mongoose.mongo.MongoClient(database.url, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    cleanup.push(() => client.close());
    const raw = client.db(database.name).collection('webhook_deliveries');
    await raw.insertMany(
      HISTORY.map((h) => ({
        _id: h.id, eventId: `evt_${h.id}`, endpointId: 'whe_1', accountId: 'acc_1', type: 'verification.succeeded', body: '{}', state: h.state, attempts: [],
        nextAttemptAt: new Date(h.next), deliveredAt: h.delivered === null ? null : new Date(h.delivered), claim: null, leaseUntil: null, createdAt: new Date(Date.UTC(2026, 0, 1)),
      })) as never[],
    );
    const store = new MongoStore(database.url);
    await store.migrate();
    await store.close();
    const docs = await raw.find({}, { projection: { finishedAt: 1 } }).sort({ _id: 1 }).toArray();
    expect(docs.map((d) => ({ id: d._id, finished: (d.finishedAt as Date | null | undefined)?.getTime() ?? null }))).toEqual(
      [...HISTORY].sort((a, b) => (a.id < b.id ? -1 : 1)).map((h) => ({ id: h.id, finished: h.finished })),
    );
  });
});
