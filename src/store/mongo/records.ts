// Admin tokens, the admin event log, the audit records and usage on MongoDB.
import type { AdminEvent, AdminToken, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import type { AuditQuery, Page, UsageRow } from '../../domain/ports/store.js';
import { toPage } from '../cursor.js';
import { isDuplicateKey, mapped } from './connection.js';
import * as doc from './docs.js';
import { afterCursor, all, auditFilter, NEWEST_FIRST } from './filters.js';
import type { Models } from './schemas.js';
import { usageOf } from './usage-query.js';

export async function createAdminToken(m: Models, t: AdminToken): Promise<void> {
  await mapped(() => m.adminTokens.create({ _id: t.id, name: t.name, role: t.role, prefix: t.prefix, hash: t.hash, createdAt: t.createdAt, lastUsedAt: null, revokedAt: null }));
}

export async function findAdminTokenByHash(m: Models, hash: string): Promise<AdminToken | null> {
  return mapped(async () => {
    const d = await m.adminTokens.findOne({ hash }).lean<doc.AdminTokenDoc>();
    return d ? doc.adminToken(d) : null;
  });
}

export async function listAdminTokens(m: Models): Promise<AdminToken[]> {
  return mapped(async () => (await m.adminTokens.find({}).sort(NEWEST_FIRST).lean<doc.AdminTokenDoc[]>()).map(doc.adminToken));
}

export async function revokeAdminToken(m: Models, id: string, at: Date): Promise<boolean> {
  return mapped(async () => (await m.adminTokens.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount === 1);
}

export async function insertAdminEvent(m: Models, e: AdminEvent): Promise<void> {
  const event = { actor: e.actor, action: e.action, targetId: e.targetId, reason: e.reason, details: e.details, createdAt: e.createdAt };
  await mapped(async () => {
    try {
      await m.adminEvents.updateOne({ _id: e.id }, { $setOnInsert: event }, { upsert: true });
    } catch (err) {
      // Two upserts of one id raced and the other inserted: the event is there.
      if (!isDuplicateKey(err)) throw err;
    }
  });
}

export async function listAdminEvents(m: Models, q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
  return mapped(async () => {
    const filter = all([...(q.targetId ? [{ targetId: q.targetId }] : []), ...(q.after ? [afterCursor(q.after)] : [])]);
    const rows = await m.adminEvents.find(filter).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.AdminEventDoc[]>();
    return toPage(rows.map(doc.adminEvent), q.limit, (e) => e.createdAt);
  });
}

export async function listVerifyTransactions(m: Models, q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
  return mapped(async () => {
    const rows = await m.verifyTransactions.find(auditFilter(q, 'verify_transactions')).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.VerifyTransactionDoc[]>();
    return toPage(rows.map(doc.verifyTransaction), q.limit, (r) => r.createdAt);
  });
}

export async function listRequestErrors(m: Models, q: AuditQuery): Promise<Page<RequestErrorRecord>> {
  return mapped(async () => {
    const rows = await m.requestErrors.find(auditFilter(q, 'request_errors')).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.RequestErrorDoc[]>();
    return toPage(rows.map(doc.requestError), q.limit, (r) => r.createdAt);
  });
}

export async function usage(m: Models, q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
  return mapped(() => usageOf(m, q));
}
