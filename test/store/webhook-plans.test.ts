// The webhook worker's claim, the delivery pages and the retention pass's
// batches on tables with history (20,000 delivered deliveries, a few
// pending): SQLite and PostgreSQL each read them through the index made for
// them, never a full scan, so a poll, a page or a batch of the pass costs the
// same after a year as on the first day. (MongoDB: mongo-plans.test.ts.)
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM as PG_CLAIM } from '../../src/store/postgres/webhooks.js';
import { numbered } from '../../src/store/postgres/sql.js';
import { BATCH_PLANNER } from '../../src/store/postgres/retention.js';
import { deliveryPageQuery, finishedBatchQuery } from '../../src/store/sql/webhooks.js';
import { CLAIM as SQLITE_CLAIM } from '../../src/store/sqlite/webhooks.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { migratedTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { pgPlanNodes, type PgPlanNode } from './query-plans.js';

const DELIVERED = 20_000;
const START = Date.UTC(2026, 0, 1);
const busy = 'acc_busy';
const endpoint = 'whe_busy';
/** Seeded rows: one in twenty for the busy account and endpoint; the last 10 pending. */
const rows = Array.from({ length: DELIVERED + 10 }, (_, i) => ({
  id: `whd_${String(i).padStart(6, '0')}`,
  account: i % 20 === 0 ? busy : `acc_${i % 20}`,
  endpoint: i % 20 === 0 ? endpoint : `whe_${i % 20}`,
  state: i < DELIVERED ? 'delivered' : 'pending',
  at: START + i * 1000,
}));
/** The retention pass: finished before the middle of the history, its cursor a quarter of the way in. */
const CUTOFF = START + (DELIVERED / 2) * 1000;
const CURSOR = rows[DELIVERED / 4]!;
const PRUNE_LIMIT = 50;

const LOOKUPS = [
  ['deliveries by account', { accountId: busy, limit: 20 }, 'webhook_deliveries_account_time'],
  ['deliveries by endpoint', { endpointId: endpoint, limit: 20 }, 'webhook_deliveries_endpoint_time'],
] as const;

describe('webhook query plans: sqlite', () => {
  const dir = tempDir();
  let db: Database.Database;
  beforeAll(async () => {
    const file = join(dir.path, 'plans.db');
    const store = new SqliteStore(file);
    await store.close();
    // A writable handle of its own: it seeds many rows in one transaction and asks the planner on the same connection.
    db = new Database(file);
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, type, body, state, next_attempt_at, created_at, delivered_at, finished_at) VALUES (?, ?, ?, ?, 'verification.succeeded', '{}', ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => rows.forEach((r) => {
      const finished = r.state === 'delivered' ? r.at : null;
      insert.run(r.id, `evt_${r.id}`, r.endpoint, r.account, r.state, r.at, r.at, finished, finished);
    }))();
    db.exec('ANALYZE');
  });
  afterAll(() => {
    db?.close();
    dir.remove();
  });
  const plan = (sql: string, params: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);

  it('the claim searches the pending deliveries only', () => {
    const lines = plan(SQLITE_CLAIM, ['c', START + 1e12, START + 1e12, START + 1e12, 32]);
    expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(/^SEARCH webhook_deliveries USING INDEX webhook_deliveries_due/));
    expect(lines.filter((l) => /^SCAN webhook_deliveries$/.test(l))).toEqual([]);
  });

  it.each(LOOKUPS)('%s', (_name, query, index) => {
    const page = deliveryPageQuery(query, (at) => at);
    const lines = plan(page.sql, page.params);
    expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(new RegExp(`^SEARCH webhook_deliveries USING INDEX ${index}`)));
    expect(lines.filter((l) => l.includes('TEMP B-TREE'))).toEqual([]);
  });
  it('a retention batch searches the finished deliveries from its cursor, in order', () => {
    const q = finishedBatchQuery(CUTOFF, { limit: PRUNE_LIMIT, after: { at: CURSOR.at, id: CURSOR.id } });
    const lines = plan(q.sql, q.params);
    const text = lines.join('\n');
    expect(lines, text).toContainEqual(expect.stringMatching(/^SEARCH webhook_deliveries USING (COVERING )?INDEX webhook_deliveries_finished \(.*(finished_at>\?|\(finished_at,id\)>\(\?,\?\))/));
    expect(lines.filter((l) => /^SCAN webhook_deliveries/.test(l)), text).toEqual([]);
    expect(lines.filter((l) => l.includes('TEMP B-TREE')), text).toEqual([]);
    const batch = db.prepare(q.sql).all(...q.params) as { id: string }[];
    expect(batch.map((r) => r.id)).toEqual(rows.slice(DELIVERED / 4 + 1, DELIVERED / 4 + 1 + PRUNE_LIMIT).map((r) => r.id));
  });
});


describe('webhook query plans: postgres', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    ({ database, client } = await migratedTestDatabase());
    await client.query(
      `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, type, body, state, next_attempt_at, created_at, delivered_at, finished_at)
       SELECT id, 'evt_' || id, endpoint_id, account_id, 'verification.succeeded', '{}', state, at, at,
              CASE WHEN state = 'delivered' THEN at END, CASE WHEN state = 'delivered' THEN at END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS t(id, endpoint_id, account_id, state, at)`,
      [rows.map((r) => r.id), rows.map((r) => r.endpoint), rows.map((r) => r.account), rows.map((r) => r.state), rows.map((r) => new Date(r.at))],
    );
    await client.query('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });
  const plan = async (sql: string, params: unknown[]) => {
    const { rows: [row] } = await client.query<{ 'QUERY PLAN': [{ Plan: PgPlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    return pgPlanNodes(row!['QUERY PLAN'][0].Plan);
  };
  const describePlan = (ns: PgPlanNode[]) => ns.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`).join(' | ');

  it('the claim reads the pending deliveries through their partial index', async () => {
    const now = new Date(START + 1e12);
    const ns = await plan(PG_CLAIM, ['c', now, now, 32]);
    expect(ns.filter((n) => n['Node Type'] === 'Seq Scan'), describePlan(ns)).toEqual([]);
    expect(ns.map((n) => n['Index Name']), describePlan(ns)).toContain('webhook_deliveries_due');
  });

  it.each(LOOKUPS)('%s', async (_name, query, index) => {
    const page = deliveryPageQuery(query, (ms) => new Date(ms));
    const ns = await plan(numbered(page.sql), page.params);
    expect(ns.filter((n) => n['Node Type'] === 'Seq Scan' || n['Node Type'] === 'Sort'), describePlan(ns)).toEqual([]);
    expect(ns.map((n) => n['Index Name']), describePlan(ns)).toContain(index);
  });
  it('a retention batch visits only the finished deliveries it deletes, from its cursor on', async () => {
    const q = finishedBatchQuery(new Date(CUTOFF), { limit: PRUNE_LIMIT, after: { at: new Date(CURSOR.at), id: CURSOR.id } });
    // Executed as the store runs it (rows locked), inside a transaction rolled back after.
    await client.query('BEGIN');
    let root: PgPlanNode;
    try {
      await client.query(BATCH_PLANNER);
      const r = await client.query<{ 'QUERY PLAN': [{ Plan: PgPlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${numbered(`${q.sql} FOR UPDATE SKIP LOCKED`)}`, q.params);
      root = r.rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await client.query('ROLLBACK');
    }
    const scans = pgPlanNodes(root).filter((n) => n['Relation Name'] === 'webhook_deliveries');
    const text = JSON.stringify(scans);
    expect(scans.map((n) => [n['Node Type'], n['Index Name']]), text).toEqual([['Index Scan', 'webhook_deliveries_finished']]);
    const [scan] = scans as [PgPlanNode];
    expect(scan['Index Cond'], text).toMatch(/finished_at >=/);
    const visited = ((scan['Actual Rows'] ?? NaN) + (scan['Rows Removed by Filter'] ?? 0)) * (scan['Actual Loops'] ?? NaN);
    expect(visited, text).toBeLessThanOrEqual(PRUNE_LIMIT + 2);
    expect(scan['Actual Rows'], text).toBe(PRUNE_LIMIT);
  });
});
