// Accounts and their API keys on SQLite.
import type { Account, ApiKey } from '../../domain/types.js';
import type { AccountQuery, Page } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { accountFilter } from '../sql/audit-filter.js';
import { ACCOUNT_SELECT, type Lite } from './connection.js';
import { mapError } from './errors.js';
import * as row from './rows.js';

export async function createAccount(lite: Lite, input: { id: string; name: string; createdAt: Date }): Promise<Account> {
  lite.stmt.insertAccount.run(input.id, input.name, input.createdAt.getTime());
  return row.account(lite.stmt.account.get(input.id) as row.AccountRow);
}

export async function getAccount(lite: Lite, id: string): Promise<Account | null> {
  const r = lite.stmt.account.get(id) as row.AccountRow | undefined;
  return r ? row.account(r) : null;
}

export async function getAccounts(lite: Lite, ids: readonly string[]): Promise<Account[]> {
  if (ids.length === 0) return [];
  // One statement for any number of ids (a JSON array), so it is prepared once.
  const rows = lite.sql(`${ACCOUNT_SELECT} WHERE a.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids));
  return (rows as row.AccountRow[]).map(row.account);
}

export async function listAccounts(lite: Lite, q: AccountQuery): Promise<Page<Account>> {
  const f = accountFilter(q, (ms) => ms, 'LIKE');
  const sql = `${ACCOUNT_SELECT} ${f.where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`;
  const rows = (lite.sql(sql).all(...f.params, q.limit + 1) as row.AccountRow[]).map(row.account);
  return toPage(rows, q.limit, (a) => a.createdAt);
}

export async function deleteAccount(lite: Lite, id: string, at: Date): Promise<boolean> {
  const r = lite.sql('UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(at.getTime(), id);
  return r.changes === 1;
}

export async function renameAccount(lite: Lite, id: string, name: string): Promise<boolean> {
  return lite.sql('UPDATE accounts SET name = ? WHERE id = ? AND deleted_at IS NULL').run(name, id).changes === 1;
}

export async function createApiKey(lite: Lite, key: ApiKey): Promise<void> {
  try {
    lite.db
      .prepare('INSERT INTO api_keys (id, account_id, prefix, hash, created_at, last_used_at, revoked_at, allowed_ips) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)')
      .run(key.id, key.accountId, key.prefix, key.hash, key.createdAt.getTime(), row.allowedIpsParam(key.allowedIps));
  } catch (err) {
    throw mapError(err);
  }
}

export async function findApiKeyByHash(lite: Lite, hash: string): Promise<ApiKey | null> {
  const r = lite.stmt.keyByHash.get(hash) as row.ApiKeyRow | undefined;
  return r ? row.apiKey(r) : null;
}

export async function getApiKey(lite: Lite, id: string): Promise<ApiKey | null> {
  const r = lite.stmt.keyById.get(id) as row.ApiKeyRow | undefined;
  return r ? row.apiKey(r) : null;
}

export async function listApiKeys(lite: Lite, accountId: string): Promise<ApiKey[]> {
  const rows = lite.sql('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC').all(accountId);
  return (rows as row.ApiKeyRow[]).map(row.apiKey);
}

export async function revokeApiKey(lite: Lite, id: string, at: Date): Promise<boolean> {
  return lite.sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at.getTime(), id).changes === 1;
}

export async function setApiKeyAllowedIps(lite: Lite, id: string, allowedIps: readonly string[]): Promise<boolean> {
  return lite.sql('UPDATE api_keys SET allowed_ips = ? WHERE id = ?').run(row.allowedIpsParam(allowedIps), id).changes === 1;
}

export async function touchApiKey(lite: Lite, id: string, at: Date): Promise<void> {
  lite.sql('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at.getTime(), id);
}
