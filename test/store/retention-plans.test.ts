// Retention and erasure scale linearly: every batch of a pass reads an index
// range that starts at the pass's cursor (domain/retention.ts), so a pass
// over n records reads each once instead of rescanning what earlier batches
// did. On a history where the older part is already redacted, with the
// cursor in the middle of what is left: SQLite's plan must SEARCH the index
// from the cursor; PostgreSQL's executed plan must visit no more rows than
// the batch takes. Re-checks too: the finished ones not redacted yet, read
// from their own partial indexes past the open ones. (MongoDB: mongo-plans.test.ts.)
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassBatch, PersonalDataScope } from '../../src/domain/ports/store.js';
import { time } from '../../src/store/postgres/db.js';
import { BATCH_PLANNER } from '../../src/store/postgres/retention.js';
import { numbered } from '../../src/store/postgres/sql.js';
import { passBatchQuery, type PassTable } from '../../src/store/sql/retention-scope.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { migratedTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { seedRows, type SeedRow, pgPlanNodes, type PgPlanNode } from './query-plans.js';

/** The erased account: one in a hundred records, so its own index is the planner's choice as it would be in production. */
const BUSY = 'acc_erased';
const rare = (rows: SeedRow[], every: number) => rows.map((r, i) => (i % every === 0 ? { ...r, accountId: BUSY } : r));
const seeded = seedRows();
const verifications = rare(seeded.verifications, 100);
const failures = rare(seeded.failures, 50);
/** Re-checks, one per verification: one in seven still open (never redacted), the rest finished. */
const rechecks = verifications.map((r, i) => ({ ...r, id: `rc_${r.id.slice(3)}`, open: i % 7 === 3 }));
const accountIds = [...new Set(verifications.map((r) => r.accountId))];
/** Records before this were redacted by earlier passes; the cursor sits half way through the rest. */
const REDACTED_BEFORE = verifications[5_000]!.createdAt;
const cursorRow = (rows: SeedRow[], accountId?: string) => {
  const mine = rows.filter((r) => r.createdAt >= REDACTED_BEFORE && (!accountId || r.accountId === accountId));
  return mine[Math.floor(mine.length / 2)]!;
};
/** PostgreSQL's incremental sort reads at least 32 rows of a range: a batch of 50 shows what it reads past the batch. */
const LIMIT = 50;

interface PassCase {
  name: string;
  table: PassTable;
  scope: PersonalDataScope;
  index: string;
  after: SeedRow;
}

const CASES: PassCase[] = [
  { name: 'erasure of an account (verifications)', table: 'verify_transactions', scope: { accountId: BUSY }, index: 'verify_transactions_account_time', after: cursorRow(verifications, BUSY) },
  { name: 'erasure of an account (failures)', table: 'request_errors', scope: { accountId: BUSY }, index: 'request_errors_account_time', after: cursorRow(failures, BUSY) },
  { name: 'retention (verifications)', table: 'verify_transactions', scope: { createdBefore: new Date(verifications.at(-1)!.createdAt) }, index: 'verify_transactions_unredacted', after: cursorRow(verifications) },
  { name: 'retention (failures)', table: 'request_errors', scope: { createdBefore: new Date(failures.at(-1)!.createdAt) }, index: 'request_errors_time', after: cursorRow(failures) },
  { name: 'erasure of an account (re-checks)', table: 'rechecks', scope: { accountId: BUSY }, index: 'rechecks_unredacted_account', after: cursorRow(rechecks, BUSY) },
  { name: 'retention (re-checks)', table: 'rechecks', scope: { createdBefore: new Date(rechecks.at(-1)!.createdAt) }, index: 'rechecks_unredacted', after: cursorRow(rechecks) },
];

const batchOf = (c: PassCase): PassBatch => ({ limit: LIMIT, after: { createdAt: new Date(c.after.createdAt), id: c.after.id } });

describe('sqlite: each batch of a pass searches its index from the cursor', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: Database.Database;
  beforeAll(async () => {
    dir = tempDir();
    const file = join(dir.path, 'pass.db');
    await new SqliteStore(file).close();
    // A writable handle of its own: it seeds many rows in one transaction and asks the planner on the same connection.
    db = new Database(file);
    const vt = db.prepare(`INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, redacted_at)
      VALUES (@id, @accountId, 'key_plan', @requestId, 'qr', @transactionId, 1, @sendingBank, '014', 'sandbox', 1, '{}', @createdAt, @redactedAt)`);
    const re = db.prepare(`INSERT INTO request_errors (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at)
      VALUES (@id, @accountId, 'key_plan', @requestId, 'qr', @transactionId, @sendingBank, 'upstream_error', 'boom', 'sandbox', 1, @createdAt)`);
    const acc = db.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, 'plan', 0)`);
    const rc = db.prepare(`INSERT INTO rechecks (id, account_id, key_id, request_id, qrcode, sending_bank, trans_ref, created_at, deadline, next_attempt_at, outcome, finished_at, redacted_at)
      VALUES (@id, @accountId, 'key_plan', @requestId, 'qr', @sendingBank, @transactionId, @createdAt, @createdAt, @createdAt, @outcome, @finishedAt, @redactedAt)`);
    db.transaction(() => {
      for (const r of verifications) vt.run({ ...r, redactedAt: r.createdAt < REDACTED_BEFORE ? r.createdAt : null });
      for (const r of failures) if (r.createdAt >= REDACTED_BEFORE) re.run(r);
      for (const id of accountIds) acc.run(id);
      for (const { open, ...r } of rechecks) {
        rc.run({ ...r, outcome: open ? null : 'unconfirmed', finishedAt: open ? null : r.createdAt + 1, redactedAt: !open && r.createdAt < REDACTED_BEFORE ? r.createdAt : null });
      }
    })();
  });
  afterAll(() => {
    db?.close();
    dir?.remove();
  });

  describe.each([
    ['without statistics', false],
    ['after ANALYZE', true],
  ])('%s', (_label, analyze) => {
    beforeAll(() => {
      if (analyze) db.exec('ANALYZE');
    });

    it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
      const q = passBatchQuery(c.table, 'id, created_at', c.scope, batchOf(c), (ms) => ms);
      const lines = (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[]).map((r) => r.detail);
      const text = lines.join('\n');
      // The range starts at the cursor (SQLite writes created_at>=? as created_at>?, and may use the row value itself).
      expect(lines, text).toContainEqual(expect.stringMatching(new RegExp(`^SEARCH ${c.table} USING (COVERING )?INDEX ${c.index} \\(.*(created_at>\\?|\\(created_at,id\\)>\\(\\?,\\?\\))`)));
      expect(lines.filter((l) => new RegExp(`^SCAN ${c.table}`).test(l)), text).toEqual([]);
      // Rows come in the pass's order from the index: nothing is sorted.
      expect(lines.filter((l) => l.includes('TEMP B-TREE')), text).toEqual([]);
      // And the batch really is the next LIMIT rows after the cursor.
      const rows = db.prepare(q.sql).all(...q.params) as { id: string; created_at: number }[];
      expect(rows).toHaveLength(LIMIT);
      expect(rows[0]!.created_at).toBeGreaterThan(c.after.createdAt);
    });
  });
});


describe('postgres: each batch of a pass visits only the rows it takes, from the cursor on', () => {
  let database: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    ({ database, client } = await migratedTestDatabase());
    const cols = (rows: SeedRow[]) => [rows.map((r) => r.id), rows.map((r) => r.accountId), rows.map((r) => r.requestId), rows.map((r) => r.transactionId), rows.map((r) => r.sendingBank), rows.map((r) => new Date(r.createdAt))];
    await client.query(
      `INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, redacted_at)
       SELECT id, account_id, 'key_plan', request_id, 'qr', transaction_id, 1, sending_bank, '014', 'sandbox', 1, '{}', created_at, CASE WHEN created_at < $7 THEN created_at END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS t(id, account_id, request_id, transaction_id, sending_bank, created_at)`,
      [...cols(verifications), new Date(REDACTED_BEFORE)],
    );
    await client.query(
      `INSERT INTO request_errors (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at)
       SELECT id, account_id, 'key_plan', request_id, 'qr', transaction_id, sending_bank, 'upstream_error', 'boom', 'sandbox', 1, created_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS t(id, account_id, request_id, transaction_id, sending_bank, created_at)`,
      cols(failures.filter((r) => r.createdAt >= REDACTED_BEFORE)),
    );
    await client.query(`INSERT INTO accounts (id, name, created_at) SELECT id, 'plan', now() FROM unnest($1::text[]) AS t(id)`, [accountIds]);
    await client.query(
      `INSERT INTO rechecks (id, account_id, key_id, request_id, qrcode, sending_bank, trans_ref, created_at, deadline, next_attempt_at, outcome, finished_at, redacted_at)
       SELECT id, account_id, 'key_plan', request_id, 'qr', sending_bank, transaction_id, created_at, created_at, created_at,
         CASE WHEN NOT open THEN 'unconfirmed' END, CASE WHEN NOT open THEN created_at END, CASE WHEN NOT open AND created_at < $8 THEN created_at END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::boolean[]) AS t(id, account_id, request_id, transaction_id, sending_bank, created_at, open)`,
      [...cols(rechecks), rechecks.map((r) => r.open), new Date(REDACTED_BEFORE)],
    );
    await client.query('VACUUM ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });


  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const q = passBatchQuery(c.table, 'id, created_at', c.scope, batchOf(c), time);
    // Executed as the store runs it (rows locked), inside a transaction rolled back after.
    await client.query('BEGIN');
    await client.query(BATCH_PLANNER);
    let root: PgPlanNode;
    try {
      const r = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${numbered(`${q.sql} FOR UPDATE SKIP LOCKED`)}`, q.params);
      root = (r.rows[0] as { 'QUERY PLAN': [{ Plan: PgPlanNode }] })['QUERY PLAN'][0].Plan;
    } finally {
      await client.query('ROLLBACK');
    }
    const scans = pgPlanNodes(root).filter((n) => n['Relation Name'] === c.table);
    const text = JSON.stringify(scans);
    expect(scans.map((n) => n['Node Type']), text).toEqual(['Index Scan']);
    const [scan] = scans as [PgPlanNode];
    expect(scan['Index Name'], text).toBe(c.index);
    expect(scan['Index Cond'], text).toMatch(/created_at >=/);
    // Rows read from the table: those returned plus those a filter threw away
    // (the cursor's own row). On the partial index (created_at alone) an
    // incremental sort orders ties by id, reading groups of 32 rows at least:
    // up to one group past the batch, never anything before the cursor.
    const visited = ((scan['Actual Rows'] ?? NaN) + (scan['Rows Removed by Filter'] ?? 0) + (scan['Rows Removed by Index Recheck'] ?? 0)) * (scan['Actual Loops'] ?? NaN);
    expect(visited, text).toBeLessThanOrEqual(LIMIT + (c.index === 'verify_transactions_unredacted' ? 33 : 1) + 1);
    expect(scan['Actual Rows'], text).toBeGreaterThanOrEqual(LIMIT);
  });
});
