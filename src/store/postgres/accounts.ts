// Accounts and their API keys on PostgreSQL.
import type { Account, ApiKey } from '../../domain/types.js';
import type { AccountQuery, Page } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { accountFilter } from '../sql/audit-filter.js';
import { ACCOUNT_SELECT, time, type PgDb } from './db.js';
import * as row from './rows.js';
import { prepared } from './sql.js';

export async function createAccount(db: PgDb, input: { id: string; name: string; createdAt: Date }): Promise<Account> {
  await db.run('INSERT INTO accounts (id, name, credits, usage, created_at) VALUES ($1, $2, 0, 0, $3)', [input.id, input.name, input.createdAt]);
  return (await getAccount(db, input.id))!;
}

export async function getAccount(db: PgDb, id: string): Promise<Account | null> {
  const { rows } = await db.run<row.AccountRow>(prepared(`${ACCOUNT_SELECT} WHERE a.id = $1`), [id]);
  return rows[0] ? row.account(rows[0]) : null;
}

export async function getAccounts(db: PgDb, ids: readonly string[]): Promise<Account[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.run<row.AccountRow>(prepared(`${ACCOUNT_SELECT} WHERE a.id = ANY($1::text[])`), [ids.map(row.noNul)]);
  return rows.map(row.account);
}

export async function listAccounts(db: PgDb, q: AccountQuery): Promise<Page<Account>> {
  // ILIKE: SQLite's LIKE is case-insensitive too.
  const f = accountFilter(q, time, 'ILIKE');
  const sql = prepared(`${ACCOUNT_SELECT} ${f.where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`);
  const { rows } = await db.run<row.AccountRow>(sql, [...f.params, q.limit + 1]);
  return toPage(rows.map(row.account), q.limit, (a) => a.createdAt);
}

export async function deleteAccount(db: PgDb, id: string, at: Date): Promise<boolean> {
  const r = await db.run('UPDATE accounts SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL', [at, id]);
  return r.rowCount === 1;
}

export async function renameAccount(db: PgDb, id: string, name: string): Promise<boolean> {
  return (await db.run('UPDATE accounts SET name = $1 WHERE id = $2 AND deleted_at IS NULL', [row.noNul(name), row.noNul(id)])).rowCount === 1;
}

export async function createApiKey(db: PgDb, key: ApiKey): Promise<void> {
  await db.run(
    'INSERT INTO api_keys (id, account_id, prefix, hash, created_at, last_used_at, revoked_at, allowed_ips) VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6)',
    [key.id, key.accountId, key.prefix, key.hash, key.createdAt, row.allowedIpsParam(key.allowedIps)],
  );
}

export async function findApiKeyByHash(db: PgDb, hash: string): Promise<ApiKey | null> {
  const { rows } = await db.run<row.ApiKeyRow>(prepared('SELECT * FROM api_keys WHERE hash = $1'), [hash]);
  return rows[0] ? row.apiKey(rows[0]) : null;
}

export async function getApiKey(db: PgDb, id: string): Promise<ApiKey | null> {
  const { rows } = await db.run<row.ApiKeyRow>(prepared('SELECT * FROM api_keys WHERE id = $1'), [id]);
  return rows[0] ? row.apiKey(rows[0]) : null;
}

export async function listApiKeys(db: PgDb, accountId: string): Promise<ApiKey[]> {
  const { rows } = await db.run<row.ApiKeyRow>(prepared('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC'), [accountId]);
  return rows.map(row.apiKey);
}

export async function revokeApiKey(db: PgDb, id: string, at: Date): Promise<boolean> {
  const r = await db.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
  return r.rowCount === 1;
}

export async function setApiKeyAllowedIps(db: PgDb, id: string, allowedIps: readonly string[]): Promise<boolean> {
  return ((await db.run('UPDATE api_keys SET allowed_ips = $1 WHERE id = $2', [row.allowedIpsParam(allowedIps), id])).rowCount ?? 0) === 1;
}

export async function touchApiKey(db: PgDb, id: string, at: Date): Promise<void> {
  await db.run(prepared('UPDATE api_keys SET last_used_at = $1 WHERE id = $2'), [at, id]);
}
