// The audit records (verifications and failures) and usage per Bangkok day
// on PostgreSQL.
import type { RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { AuditQuery, Page, UsageRow } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { auditFilter } from '../sql/audit-filter.js';
import { usageRows } from '../usage.js';
import { time, type PgDb } from './db.js';
import * as row from './rows.js';
import { numbered } from './sql.js';

const BANGKOK_DAY = `to_char(created_at AT TIME ZONE 'Asia/Bangkok', 'YYYY-MM-DD')`;

export async function listVerifyTransactions(db: PgDb, q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
  const f = auditFilter(q, 'verify_transactions', time);
  const sql = numbered(`SELECT * FROM verify_transactions ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`);
  const { rows } = await db.run<row.VtRow>(sql, [...f.params, q.limit + 1]);
  return toPage(rows.map(row.verifyTransaction), q.limit, (r) => r.createdAt);
}

export async function listRequestErrors(db: PgDb, q: AuditQuery): Promise<Page<RequestErrorRecord>> {
  const f = auditFilter(q, 'request_errors', time);
  const sql = numbered(`SELECT * FROM request_errors ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`);
  const { rows } = await db.run<row.ErrorRow>(sql, [...f.params, q.limit + 1]);
  return toPage(rows.map(row.requestError), q.limit, (r) => r.createdAt);
}

export async function usage(db: PgDb, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  const f = auditFilter({ ...q, limit: 0 }, 'request_errors', time);
  const [successes, failures] = await Promise.all([
    db.run<{ account_id: string; day: string; n: number }>(
      numbered(`SELECT account_id, ${BANGKOK_DAY} AS day, count(*)::int AS n FROM verify_transactions ${f.where} GROUP BY 1, 2`),
      f.params,
    ),
    db.run<{ account_id: string; day: string; kind: string; n: number }>(
      numbered(
        `SELECT account_id, ${BANGKOK_DAY} AS day, kind, count(*)::int AS n FROM request_errors ${f.where} ${f.where ? 'AND' : 'WHERE'} account_id IS NOT NULL GROUP BY 1, 2, 3`,
      ),
      f.params,
    ),
  ]);
  return usageRows(successes.rows, failures.rows);
}
