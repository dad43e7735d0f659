// The plans of the payment request lookups, on SQLite and PostgreSQL with
// history (thousands of requests, most of them closed) and statistics: each
// reads the index made for it, never the whole table, and never sorts a page.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sql from '../../src/store/sql/payments.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { migratedTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { pgPlanNodes, type PgPlanNode } from './query-plans.js';

const ROWS = 20_000;
const NOW = Date.UTC(2026, 10, 1);
/** Each lookup, its parameters (times in epoch ms) and the index that must serve it. */
const LOOKUPS = [
  { name: 'by reference (create, GET ?reference=)', sql: sql.FIND_PAYMENT, params: ['acc_7', 'order-77'], index: 'payment_requests_reference' },
  { name: 'the request a slip paid (pay)', sql: sql.PAID_BY_SLIP, params: ['TX77', '004'], index: 'payment_requests_paying_slip' },
  { name: 'due pending requests (expiry)', sql: sql.DUE_PAYMENTS, params: [NOW, 100], index: 'payment_requests_due' },
  { name: "an account's page, newest first", ...page({ accountId: 'acc_7', limit: 20 }), index: 'payment_requests_account_time' },
  // PostgreSQL may fetch the account's few pending rows by bitmap and sort them: a sort of open orders only, never of history.
  { name: "an account's pending requests (LINE matching)", sql: sql.PENDING_OF_ACCOUNT, params: ['acc_7', 2000], index: 'payment_requests_pending', pgMaySort: true },
] as const;

function page(q: Parameters<typeof sql.paymentPageQuery>[0]) {
  return sql.paymentPageQuery(q, (ms) => ms);
}

/** Rows spread over 500 accounts and 5 receivers; 1 in 11 pending (a few of each account's, many in all), the rest paid or expired. */
function seed(): unknown[][] {
  return Array.from({ length: ROWS }, (_, i) => {
    const status = i % 11 === 0 ? 'pending' : i % 2 === 0 ? 'paid' : 'expired';
    const created = NOW - (ROWS - i) * 60_000;
    return [`pr_${i}`, `acc_${i % 500}`, `rcv_${i % 5}`, `order-${i}`, 1000 + (i % 300), status, created, created + 30 * 60_000, status === 'paid' ? `TX${i}` : null, status === 'paid' ? '004' : null];
  });
}

describe('sqlite: payment request plans', () => {
  const dir = tempDir();
  let db: Database.Database;
  beforeAll(async () => {
    const file = join(dir.path, 'plans.db');
    const store = new SqliteStore(file);
    await store.migrate();
    await store.close();
    // A writable handle of its own: it seeds many rows in one transaction and asks the planner on the same connection.
    db = new Database(file);
    // The accounts the rows name are not what is measured here.
    db.pragma('foreign_keys = OFF');
    const insert = db.prepare(`INSERT INTO payment_requests (id, account_id, receiver_id, reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, paid_transaction_id, paid_sending_bank)
      VALUES (?, ?, ?, ?, ?, 0, 0, 'qr', ?, ?, ?, ?, ?)`);
    db.transaction(() => {
      for (const r of seed()) insert.run(...(r as [string]));
    })();
    db.exec('ANALYZE');
  });
  afterAll(() => {
    db?.close();
    dir.remove();
  });

  const plan = (text: string, params: readonly unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((r) => r.detail);

  it.each(LOOKUPS.map((l) => [l.name, l] as const))('%s', (_name, l) => {
    const lines = plan(l.sql, l.params);
    expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(new RegExp(`^SEARCH payment_requests USING (COVERING )?INDEX ${l.index}\\b`)));
    expect(lines.filter((x) => /^SCAN payment_requests/.test(x) || x.includes('TEMP B-TREE')), lines.join('\n')).toEqual([]);
  });

  it('a unique amount taken by a pending request (create)', () => {
    const lines = plan(sql.PENDING_AMOUNT, ['rcv_1', 1001]);
    expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(/^SEARCH payment_requests USING (COVERING )?INDEX payment_requests_pending_amount\b/));
  });
});


describe('postgres: payment request plans', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    ({ database, client } = await migratedTestDatabase());
    // The accounts the rows name are not what is measured here (superuser: foreign keys off for this session).
    await client.query('SET session_replication_role = replica');
    const rows = seed();
    const column = (i: number) => rows.map((r) => r[i]);
    await client.query(
      `INSERT INTO payment_requests (id, account_id, receiver_id, reference, amount, requested_amount, unique_amount, promptpay, status, created_at, expires_at, paid_transaction_id, paid_sending_bank)
       SELECT id, acc, rcv, ref, amount, 0, false, 'qr', status, to_timestamp(created / 1000.0), to_timestamp(expires / 1000.0), tx, bank
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[])
         AS t(id, acc, rcv, ref, amount, status, created, expires, tx, bank)`,
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(column),
    );
    await client.query('ANALYZE payment_requests');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  const literal = (v: unknown) => (typeof v === 'number' && v > 1e12 ? `'${new Date(v).toISOString()}'::timestamptz` : typeof v === 'number' ? String(v) : `'${String(v)}'`);

  it.each(LOOKUPS.map((l) => [l.name, l] as const))('%s', async (_name, l) => {
    let n = 0;
    const text = l.sql.replace(/\?/g, () => literal(l.params[n++]));
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PgPlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`);
    const all = pgPlanNodes(rows[0]!['QUERY PLAN'][0].Plan);
    const summary = JSON.stringify(all.map((x) => [x['Node Type'], x['Index Name'] ?? x['Relation Name'] ?? '']));
    expect(all.some((x) => x['Index Name'] === l.index), summary).toBe(true);
    const maySort = 'pgMaySort' in l && l.pgMaySort;
    expect(all.filter((x) => x['Node Type'] === 'Seq Scan' || (x['Node Type'] === 'Sort' && !maySort)), summary).toEqual([]);
  });
});
