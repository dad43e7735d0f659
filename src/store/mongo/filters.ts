// Query filters for pages and audit searches: the same rules as
// sql/audit-filter.ts, written as MongoDB filter documents.
import { decodeCursor } from '../cursor.js';
import type { AccountQuery, AuditQuery } from '../../domain/ports/store.js';

export type Filter = Record<string, unknown>;

/** Sort of every keyset page: newest first, id as tie-breaker. */
export const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/** Rows strictly after the cursor in NEWEST_FIRST order. */
export function afterCursor(cursor: string): Filter {
  const c = decodeCursor(cursor);
  const at = new Date(c.at);
  return { $or: [{ createdAt: { $lt: at } }, { createdAt: at, _id: { $lt: c.id } }] };
}

/** Joins clauses with $and (two $or clauses cannot share one object). */
export function all(clauses: Filter[]): Filter {
  if (clauses.length === 0) return {};
  if (clauses.length === 1) return clauses[0]!;
  return { $and: clauses };
}

export function auditFilter(q: Omit<AuditQuery, 'limit'>, collection: 'verify_transactions' | 'request_errors'): Filter {
  const clauses: Filter[] = [];
  if (q.accountId) clauses.push({ accountId: q.accountId });
  if (q.id) clauses.push({ _id: q.id });
  if (q.from || q.to) clauses.push({ createdAt: { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) } });
  if (q.upstream) clauses.push({ upstream: q.upstream });
  if (q.requestId) clauses.push({ requestId: q.requestId });
  if (q.transactionId) clauses.push({ transactionId: q.transactionId });
  if (q.sendingBank) clauses.push({ sendingBank: q.sendingBank });
  if (collection === 'verify_transactions') {
    if (q.receivingBank) clauses.push({ receivingBank: q.receivingBank });
  } else if (q.kind) {
    clauses.push({ kind: q.kind });
  }
  if (q.after) clauses.push(afterCursor(q.after));
  return all(clauses);
}

/** Escapes regex metacharacters so a search for "a.b" means the text "a.b". */
function literalRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Case-insensitive name substring or exact id, like the SQL engines' LIKE/ILIKE. */
export function accountFilter(q: AccountQuery): Filter {
  const clauses: Filter[] = q.includeDeleted ? [] : [{ deletedAt: null }];
  if (q.search) clauses.push({ $or: [{ name: { $regex: literalRegex(q.search), $options: 'i' } }, { _id: q.search }] });
  if (q.after) clauses.push(afterCursor(q.after));
  return all(clauses);
}
