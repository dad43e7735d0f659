// PostgreSQL's plans for the lookups of query-plans.ts, on a database with
// history and fresh statistics (ANALYZE), as a custom plan and as the generic
// plan a named statement switches to: each must use the index made for it,
// never a sequential scan, and never sort a page.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_BANGKOK_DAY } from '../../src/store/postgres/audit.js';
import { time } from '../../src/store/postgres/db.js';
import { numbered } from '../../src/store/postgres/sql.js';
import { auditPageQuery, usageQueries } from '../../src/store/sql/audit-filter.js';
import { migratedTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { PLANNED_LOOKUPS, PLANNED_USAGE, seedRows, type IndexRole, type SeedRow, pgPlanNodes, type PgPlanNode } from './query-plans.js';


let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  ({ database, client } = await migratedTestDatabase());
  const { verifications, failures } = seedRows();
  const columns = (rows: SeedRow[]) => [rows.map((r) => r.id), rows.map((r) => r.accountId), rows.map((r) => r.requestId), rows.map((r) => r.transactionId), rows.map((r) => r.sendingBank), rows.map((r) => new Date(r.createdAt))];
  await client.query(
    `INSERT INTO verify_transactions (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at)
     SELECT id, account_id, 'key_plan', request_id, 'qr', transaction_id, 1, sending_bank, '014', 'sandbox', 1, '{}', created_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS t(id, account_id, request_id, transaction_id, sending_bank, created_at)`,
    columns(verifications),
  );
  await client.query(
    `INSERT INTO request_errors (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at)
     SELECT id, account_id, 'key_plan', request_id, 'qr', transaction_id, sending_bank, 'upstream_error', 'boom', 'sandbox', 1, created_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS t(id, account_id, request_id, transaction_id, sending_bank, created_at)`,
    columns(failures),
  );
  await client.query('ANALYZE');
}, 120_000);

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

function literal(v: unknown): string {
  if (v instanceof Date) return `'${v.toISOString()}'::timestamptz`;
  if (typeof v === 'number') return String(v);
  return `'${String(v).replaceAll("'", "''")}'`;
}

let prepared = 0;

/** The plan as PostgreSQL chooses it for these values, or as the generic plan a named statement ends up with. */
async function plan(sql: string, params: unknown[], generic: boolean): Promise<PgPlanNode> {
  const text = numbered(sql);
  if (!generic) return ((await client.query(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows[0] as { 'QUERY PLAN': [{ Plan: PgPlanNode }] })['QUERY PLAN'][0].Plan;
  const name = `plan_${++prepared}`;
  await client.query(`PREPARE ${name} AS ${text}`);
  await client.query('SET plan_cache_mode = force_generic_plan');
  try {
    const r = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${params.map(literal).join(', ')})`);
    return (r.rows[0] as { 'QUERY PLAN': [{ Plan: PgPlanNode }] })['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('RESET plan_cache_mode');
    await client.query(`DEALLOCATE ${name}`);
  }
}

const describePlan = (n: PgPlanNode) => pgPlanNodes(n).map((x) => `${x['Node Type']}${x['Relation Name'] ? ` on ${x['Relation Name']}` : ''}${x['Index Name'] ? ` using ${x['Index Name']}` : ''}`).join(' > ');

/** PostgreSQL serves the duplicate check from the slip's own index (see its migrations). */
const indexName = (table: string, role: IndexRole) => (role === 'duplicate' ? `${table}_transaction_time` : `${table}_${role}`);

function expectServedBy(root: PgPlanNode, table: string, index: IndexRole, opts: { sorts: boolean }): void {
  const all = pgPlanNodes(root);
  const text = describePlan(root);
  expect(all.map((n) => n['Index Name']), text).toContain(indexName(table, index));
  expect(all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table), text).toEqual([]);
  if (!opts.sorts) expect(all.filter((n) => n['Node Type'].includes('Sort')), text).toEqual([]);
}

describe.each([
  ['custom plan', false],
  ['generic plan (named statement)', true],
])('postgres query plans, %s', (_label, generic) => {
  it.each(PLANNED_LOOKUPS.map((l) => [l.name, l] as const))('%s', async (_name, lookup) => {
    const { sql, params } = auditPageQuery(lookup.query, lookup.table, time);
    // Within a time range PostgreSQL may read the range through the index and
    // sort it when its statistics say the range holds few rows; the rows it
    // sorts are the range's, never the account's history.
    const ranged = lookup.query.from !== undefined || lookup.query.to !== undefined;
    expectServedBy(await plan(sql, params, generic), lookup.table, lookup.index, { sorts: ranged });
  });

  it.each(PLANNED_USAGE.map((u) => [u.name, u] as const))('%s', async (_name, usage) => {
    const u = usageQueries(usage.query, time, PG_BANGKOK_DAY, 'count(*)::int');
    // Grouping by day may sort or hash; reading the range must not walk more.
    expectServedBy(await plan(u.successes.sql, u.successes.params, generic), 'verify_transactions', usage.index, { sorts: true });
    expectServedBy(await plan(u.failures.sql, u.failures.params, generic), 'request_errors', usage.index, { sorts: true });
  });
});
