// WHERE clauses and whole statements of the audit queries, shared by the SQL
// engines. Placeholders are written as `?`; the PostgreSQL adapter renumbers
// them to $n. Every filter the verify path or the admin API's common filters
// use has an index whose shape matches it (see the engines' migrations), and
// test/store/*-plans.test.ts check each engine's plan of these statements.
import { decodeCursor } from '../cursor.js';
import type { AccountQuery, AuditQuery } from '../../domain/ports/store.js';

export interface SqlFilter {
  where: string;
  params: unknown[];
}

/**
 * `time` turns a millisecond timestamp into the engine's parameter value
 * (a number for SQLite, a Date for PostgreSQL).
 */
function auditFilter(q: AuditQuery, table: AuditTable, time: (ms: number) => unknown): SqlFilter {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (q.accountId) add('account_id = ?', q.accountId);
  if (q.id) add('id = ?', q.id);
  if (q.from) add('created_at >= ?', time(q.from.getTime()));
  if (q.to) add('created_at < ?', time(q.to.getTime()));
  if (q.upstream) add('upstream = ?', q.upstream);
  if (q.requestId) add('request_id = ?', q.requestId);
  if (q.transactionId) add('transaction_id = ?', q.transactionId);
  if (q.sendingBank) add('sending_bank = ?', q.sendingBank);
  if (table === 'verify_transactions') {
    if (q.receivingBank) add('receiving_bank = ?', q.receivingBank);
  } else if (q.kind) {
    add('kind = ?', q.kind);
  }
  if (q.after) {
    const c = decodeCursor(q.after);
    add('(created_at < ? OR (created_at = ? AND id < ?))', time(c.at), time(c.at), c.id);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

export type AuditTable = 'verify_transactions' | 'request_errors';

/** One page of audit records, newest first (the keyset order every index ends with). */
export function auditPageQuery(q: AuditQuery, table: AuditTable, time: (ms: number) => unknown): SqlFilter & { sql: string } {
  const f = auditFilter(q, table, time);
  return { ...f, sql: `SELECT * FROM ${table} ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`, params: [...f.params, q.limit + 1] };
}

/**
 * Usage per account and Bangkok day: successes, then failures by kind.
 * `day` is the engine's expression for created_at's Bangkok date.
 */
export function usageQueries(q: { accountId?: string; from?: Date; to?: Date }, time: (ms: number) => unknown, day: string, count: string) {
  const f = auditFilter({ ...q, limit: 0 }, 'request_errors', time);
  return {
    successes: { sql: `SELECT account_id, ${day} AS day, ${count} AS n FROM verify_transactions ${f.where} GROUP BY 1, 2`, params: f.params },
    failures: {
      sql: `SELECT account_id, ${day} AS day, kind, ${count} AS n FROM request_errors ${f.where} ${f.where ? 'AND' : 'WHERE'} account_id IS NOT NULL GROUP BY 1, 2, 3`,
      params: f.params,
    },
  };
}

/** Escapes LIKE wildcards so a search for "50%" means the text "50%". */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Account list filter; `like` is the engine's case-insensitive LIKE operator. */
export function accountFilter(q: AccountQuery, time: (ms: number) => unknown, like: 'LIKE' | 'ILIKE'): SqlFilter {
  const clauses: string[] = q.includeDeleted ? [] : ['a.deleted_at IS NULL'];
  const params: unknown[] = [];
  if (q.search) {
    clauses.push(`(a.name ${like} ? ESCAPE '\\' OR a.id = ?)`);
    params.push(likePattern(q.search), q.search);
  }
  if (q.after) {
    const c = decodeCursor(q.after);
    clauses.push('(a.created_at < ? OR (a.created_at = ? AND a.id < ?))');
    params.push(time(c.at), time(c.at), c.id);
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
