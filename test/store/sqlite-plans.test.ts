// SQLite's plans for the lookups of query-plans.ts, on a file with history,
// with and without ANALYZE statistics: each must SEARCH the index made for
// it, never SCAN a table, and never sort a page in a temporary b-tree.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPageQuery, usageQueries } from '../../src/store/sql/audit-filter.js';
import { SQLITE_BANGKOK_DAY } from '../../src/store/sqlite/audit.js';
import { STATEMENTS } from '../../src/store/sqlite/connection.js';
import { LIST_RECEIVERS } from '../../src/store/sqlite/receivers.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/temp.js';
import { PLANNED_LOOKUPS, PLANNED_USAGE, seedRows, type IndexRole } from './query-plans.js';

const ms = (n: number) => n;
let dir: ReturnType<typeof tempDir>;
let db: Database.Database;

beforeAll(async () => {
  dir = tempDir();
  const file = join(dir.path, 'plans.db');
  const store = new SqliteStore(file);
  await store.migrate();
  await store.close();
  // A writable handle of its own: it seeds many rows in one transaction and asks the planner on the same connection.
  db = new Database(file);
  const { verifications, failures } = seedRows();
  const vt = db.prepare(`INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
    VALUES (@id, @accountId, 'key_plan', @requestId, 'qr', @transactionId, 1, @sendingBank, '014', 'sandbox', 1, '{}', @createdAt)`);
  const re = db.prepare(`INSERT INTO request_errors (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at)
    VALUES (@id, @accountId, 'key_plan', @requestId, 'qr', @transactionId, @sendingBank, 'upstream_error', 'boom', 'sandbox', 1, @createdAt)`);
  db.transaction(() => {
    for (const r of verifications) vt.run(r);
    for (const r of failures) re.run(r);
  })();
});

afterAll(() => {
  db?.close();
  dir?.remove();
});

function plan(sql: string, params: unknown[]): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
}

/** The table is read through `index` (searched, or walked in order when nothing filters), never scanned bare. */
function expectServedBy(lines: string[], table: string, index: IndexRole | 'account', opts: { sorts: boolean; filtered: boolean }): void {
  const name = `${table}_${index}`;
  const access = opts.filtered ? 'SEARCH' : 'SCAN';
  expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(new RegExp(`^${access} ${table} USING (COVERING )?INDEX ${name}\\b`)));
  expect(lines.filter((l) => new RegExp(`^SCAN ${table}$`).test(l)), 'a full scan of the table').toEqual([]);
  if (!opts.sorts) expect(lines.filter((l) => l.includes('TEMP B-TREE')), 'a sort of the page').toEqual([]);
}

describe.each([
  ['without statistics', false],
  ['after ANALYZE', true],
])('sqlite query plans, %s', (_label, analyze) => {
  beforeAll(() => {
    if (analyze) db.exec('ANALYZE');
  });

  it.each(PLANNED_LOOKUPS.map((l) => [l.name, l] as const))('%s', (_name, lookup) => {
    const { sql, params } = auditPageQuery(lookup.query, lookup.table, ms);
    const filtered = Object.keys(lookup.query).some((k) => k !== 'limit');
    expectServedBy(plan(sql, params), lookup.table, lookup.index, { sorts: false, filtered });
  });

  it.each(PLANNED_USAGE.map((u) => [u.name, u] as const))('%s', (_name, usage) => {
    const u = usageQueries(usage.query, ms, SQLITE_BANGKOK_DAY, 'count(*)');
    // Grouping by day needs a sort; reading the range must not walk more.
    expectServedBy(plan(u.successes.sql, u.successes.params), 'verify_transactions', usage.index, { sorts: true, filtered: true });
    expectServedBy(plan(u.failures.sql, u.failures.params), 'request_errors', usage.index, { sorts: true, filtered: true });
  });

  it("an account's receivers (the verify path's cache) are read by their account index, in order", () => {
    expectServedBy(plan(LIST_RECEIVERS, ['acc_busy']), 'receivers', 'account', { sorts: false, filtered: true });
  });

  it('the verify path statements (keys, accounts, holds, charges) read by key, never by scan or sort', () => {
    for (const [name, sql] of Object.entries(STATEMENTS)) {
      const names = [...sql.matchAll(/@(\w+)/g)].map((m) => m[1]!);
      const params = names.length > 0 ? [Object.fromEntries(names.map((n) => [n, 'x']))] : Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x');
      const lines = plan(sql, params);
      const bad = lines.filter((l) => /^SCAN /.test(l) || l.includes('TEMP B-TREE'));
      expect(bad, `${name}: ${lines.join(' | ')}`).toEqual([]);
    }
  });
});
