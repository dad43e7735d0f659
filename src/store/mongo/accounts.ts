// Accounts and their API keys on MongoDB.
import type { Account, ApiKey } from '../../domain/types.js';
import { StoreError, type AccountQuery, type Page } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { mapped } from './connection.js';
import * as doc from './docs.js';
import { accountFilter, NEWEST_FIRST } from './filters.js';
import type { Models } from './schemas.js';

export async function createAccount(m: Models, input: { id: string; name: string; createdAt: Date }): Promise<Account> {
  return mapped(async () => {
    await m.accounts.create({ _id: input.id, name: input.name, credits: 0, usage: 0, holds: [], appliedLedger: [], refusedLedger: [], createdAt: input.createdAt, deletedAt: null });
    return (await getAccount(m, input.id))!;
  });
}

export async function getAccount(m: Models, id: string): Promise<Account | null> {
  return mapped(async () => {
    const d = await m.accounts.findById(id, doc.ACCOUNT_PROJECTION).lean<doc.AccountDoc>();
    return d ? doc.account(d) : null;
  });
}

export async function getAccounts(m: Models, ids: readonly string[]): Promise<Account[]> {
  if (ids.length === 0) return [];
  return mapped(async () => (await m.accounts.find({ _id: { $in: [...ids] } }, doc.ACCOUNT_PROJECTION).lean<doc.AccountDoc[]>()).map(doc.account));
}

export async function listAccounts(m: Models, q: AccountQuery): Promise<Page<Account>> {
  return mapped(async () => {
    const rows = await m.accounts.find(accountFilter(q), doc.ACCOUNT_PROJECTION).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.AccountDoc[]>();
    return toPage(rows.map(doc.account), q.limit, (a) => a.createdAt);
  });
}

export async function deleteAccount(m: Models, id: string, at: Date): Promise<boolean> {
  return mapped(async () => (await m.accounts.updateOne({ _id: id, deletedAt: null }, { $set: { deletedAt: at } })).modifiedCount === 1);
}

export async function renameAccount(m: Models, id: string, name: string): Promise<boolean> {
  return mapped(async () => (await m.accounts.updateOne({ _id: id, deletedAt: null }, { $set: { name } })).matchedCount === 1);
}

export async function createApiKey(m: Models, key: ApiKey): Promise<void> {
  await mapped(async () => {
    // The SQL engines' foreign key, checked by hand (no joins here).
    if (!(await m.accounts.exists({ _id: key.accountId }))) throw new StoreError('conflict', 'account does not exist');
    await m.apiKeys.create({ _id: key.id, accountId: key.accountId, prefix: key.prefix, hash: key.hash, createdAt: key.createdAt, lastUsedAt: null, revokedAt: null, allowedIps: [...key.allowedIps] });
  });
}

export async function findApiKeyByHash(m: Models, hash: string): Promise<ApiKey | null> {
  return mapped(async () => {
    const d = await m.apiKeys.findOne({ hash }).lean<doc.ApiKeyDoc>();
    return d ? doc.apiKey(d) : null;
  });
}

export async function getApiKey(m: Models, id: string): Promise<ApiKey | null> {
  return mapped(async () => {
    const d = await m.apiKeys.findById(id).lean<doc.ApiKeyDoc>();
    return d ? doc.apiKey(d) : null;
  });
}

export async function listApiKeys(m: Models, accountId: string): Promise<ApiKey[]> {
  return mapped(async () => (await m.apiKeys.find({ accountId }).sort(NEWEST_FIRST).lean<doc.ApiKeyDoc[]>()).map(doc.apiKey));
}

export async function revokeApiKey(m: Models, id: string, at: Date): Promise<boolean> {
  return mapped(async () => (await m.apiKeys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount === 1);
}

export async function setApiKeyAllowedIps(m: Models, id: string, allowedIps: readonly string[]): Promise<boolean> {
  return mapped(async () => (await m.apiKeys.updateOne({ _id: id }, { $set: { allowedIps: [...allowedIps] } })).matchedCount === 1);
}

export async function touchApiKey(m: Models, id: string, at: Date): Promise<void> {
  await mapped(() => m.apiKeys.updateOne({ _id: id }, { $set: { lastUsedAt: at } }));
}
