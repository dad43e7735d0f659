// The audit records (verifications and failures) and usage per Bangkok day
// on PostgreSQL.
import type { RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { AuditQuery, Page, UsageRow } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { auditPageQuery, usageQueries } from '../sql/audit-filter.js';
import { usageRows } from '../usage.js';
import { time, type PgDb } from './db.js';
import * as row from './rows.js';
import { prepared } from './sql.js';

export const PG_BANGKOK_DAY = `to_char(created_at AT TIME ZONE 'Asia/Bangkok', 'YYYY-MM-DD')`;

export async function listVerifyTransactions(db: PgDb, q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
  const { sql, params } = auditPageQuery(q, 'verify_transactions', time);
  const { rows } = await db.run<row.VtRow>(prepared(sql), params);
  return toPage(rows.map(row.verifyTransaction), q.limit, (r) => r.createdAt);
}

export async function listRequestErrors(db: PgDb, q: AuditQuery): Promise<Page<RequestErrorRecord>> {
  const { sql, params } = auditPageQuery(q, 'request_errors', time);
  const { rows } = await db.run<row.ErrorRow>(prepared(sql), params);
  return toPage(rows.map(row.requestError), q.limit, (r) => r.createdAt);
}

export async function usage(db: PgDb, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  const u = usageQueries(q, time, PG_BANGKOK_DAY, 'count(*)::int');
  const [successes, failures] = await Promise.all([
    db.run<{ account_id: string; day: string; n: number }>(prepared(u.successes.sql), u.successes.params),
    db.run<{ account_id: string; day: string; kind: string; n: number }>(prepared(u.failures.sql), u.failures.params),
  ]);
  return usageRows(successes.rows, failures.rows);
}
