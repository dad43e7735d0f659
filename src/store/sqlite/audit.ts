// The audit records (verifications and failures) and usage per Bangkok day
// on SQLite.
import type { RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { AuditQuery, Page, UsageRow } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { auditFilter } from '../sql/audit-filter.js';
import type { Lite } from './connection.js';
import * as row from './rows.js';

const BANGKOK_DAY = `strftime('%Y-%m-%d', created_at / 1000 + 25200, 'unixepoch')`;

export async function listVerifyTransactions(lite: Lite, q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
  const f = auditFilter(q, 'verify_transactions', (ms) => ms);
  const sql = `SELECT * FROM verify_transactions ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`;
  const rows = (lite.db.prepare(sql).all(...f.params, q.limit + 1) as row.VtRow[]).map(row.verifyTransaction);
  return toPage(rows, q.limit, (r) => r.createdAt);
}

export async function listRequestErrors(lite: Lite, q: AuditQuery): Promise<Page<RequestErrorRecord>> {
  const f = auditFilter(q, 'request_errors', (ms) => ms);
  const sql = `SELECT * FROM request_errors ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`;
  const rows = (lite.db.prepare(sql).all(...f.params, q.limit + 1) as row.ErrorRow[]).map(row.requestError);
  return toPage(rows, q.limit, (r) => r.createdAt);
}

export async function usage(lite: Lite, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  const f = auditFilter({ ...q, limit: 0 }, 'request_errors', (ms) => ms);
  const successes = lite.db
    .prepare(`SELECT account_id, ${BANGKOK_DAY} AS day, count(*) AS n FROM verify_transactions ${f.where} GROUP BY 1, 2`)
    .all(...f.params) as { account_id: string; day: string; n: number }[];
  const failures = lite.db
    .prepare(`SELECT account_id, ${BANGKOK_DAY} AS day, kind, count(*) AS n FROM request_errors ${f.where} ${f.where ? 'AND' : 'WHERE'} account_id IS NOT NULL GROUP BY 1, 2, 3`)
    .all(...f.params) as { account_id: string; day: string; kind: string; n: number }[];
  return row.usageRows(successes, failures);
}
