// The audit records (verifications and failures) and usage per Bangkok day
// on SQLite.
import type { RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { AuditQuery, Page, UsageRow } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { auditPageQuery, usageQueries } from '../sql/audit-filter.js';
import type { Lite } from './connection.js';
import * as row from './rows.js';

export const SQLITE_BANGKOK_DAY = `strftime('%Y-%m-%d', created_at / 1000 + 25200, 'unixepoch')`;
const ms = (n: number) => n;

export async function listVerifyTransactions(lite: Lite, q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
  const { sql, params } = auditPageQuery(q, 'verify_transactions', ms);
  const rows = (lite.sql(sql).all(...params) as row.VtRow[]).map(row.verifyTransaction);
  return toPage(rows, q.limit, (r) => r.createdAt);
}

export async function listRequestErrors(lite: Lite, q: AuditQuery): Promise<Page<RequestErrorRecord>> {
  const { sql, params } = auditPageQuery(q, 'request_errors', ms);
  const rows = (lite.sql(sql).all(...params) as row.ErrorRow[]).map(row.requestError);
  return toPage(rows, q.limit, (r) => r.createdAt);
}

export async function usage(lite: Lite, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  const u = usageQueries(q, ms, SQLITE_BANGKOK_DAY, 'count(*)');
  const successes = lite.sql(u.successes.sql).all(...u.successes.params) as { account_id: string; day: string; n: number }[];
  const failures = lite.sql(u.failures.sql).all(...u.failures.params) as { account_id: string; day: string; kind: string; n: number }[];
  return row.usageRows(successes, failures);
}
