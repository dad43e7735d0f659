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

/**
 * A batch's read: the next `limit` rows of `table` in scope after the
 * cursor, oldest first (the order every index a pass uses ends with).
 * Verification records already redacted are passed over.
 */
export function passBatchQuery(table: AuditTable, columns: string, scope: PersonalDataScope, batch: PassBatch, time: (ms: number) => unknown): { sql: string; params: unknown[] } {
  const f = personalDataBatch(scope, batch.after, time);
  const unredacted = table === 'verify_transactions' ? 'redacted_at IS NULL AND ' : '';
  return { sql: `SELECT ${columns} FROM ${table} WHERE ${unredacted}${f.where} ORDER BY created_at, id LIMIT ?`, params: [...f.params, batch.limit] };
}
