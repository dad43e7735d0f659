// The WHERE clause of a retention pass or an erasure batch, shared by the SQL
// engines (`?` placeholders; the PostgreSQL adapter renumbers them).
import type { PassBatch, PassCursor, PersonalDataScope } from '../../domain/ports/store.js';
import type { AuditTable, SqlFilter } from './audit-filter.js';

/** `time` turns a millisecond timestamp into the engine's parameter value. */
export function personalDataScope(scope: PersonalDataScope, time: (ms: number) => unknown): SqlFilter {
  if ('accountId' in scope) return { where: 'account_id = ?', params: [scope.accountId] };
  return { where: 'created_at < ?', params: [time(scope.createdBefore.getTime())] };
}

/**
 * The scope, strictly after the batch's cursor. `created_at >= ?` starts the
 * index range at the cursor on every index a pass uses, including the
 * partial index of unredacted records, which ends with created_at alone;
 * the row-value comparison then only passes over the cursor's ties.
 */
function personalDataBatch(scope: PersonalDataScope, after: PassCursor | null, time: (ms: number) => unknown): SqlFilter {
  const f = personalDataScope(scope, time);
  if (!after) return f;
  const at = time(after.createdAt.getTime());
  return { where: `${f.where} AND created_at >= ? AND (created_at, id) > (?, ?)`, params: [...f.params, at, at, after.id] };
}

/** The tables a pass goes through: the audit records, then the re-checks. */
export type PassTable = AuditTable | 'rechecks';

/**
 * The rows of each table a pass still has to change, written as each
 * table's partial index of them says (so the engine picks that index):
 * verification records not redacted yet; re-checks finished and not
 * redacted yet (an open one is still at work); every failed request.
 */
const STILL_TO_DO: Record<PassTable, string> = {
  verify_transactions: 'redacted_at IS NULL AND ',
  request_errors: '',
  rechecks: 'finished_at IS NOT NULL AND redacted_at IS NULL AND ',
};

/**
 * A batch's read: the next `limit` rows of `table` in scope after the
 * cursor, oldest first (the order every index a pass uses ends with).
 * Rows already done (STILL_TO_DO) are passed over.
 */
export function passBatchQuery(table: PassTable, columns: string, scope: PersonalDataScope, batch: PassBatch, time: (ms: number) => unknown): { sql: string; params: unknown[] } {
  const f = personalDataBatch(scope, batch.after, time);
  return { sql: `SELECT ${columns} FROM ${table} WHERE ${STILL_TO_DO[table]}${f.where} ORDER BY created_at, id LIMIT ?`, params: [...f.params, batch.limit] };
}
