// Server store on MongoDB through mongoose. Several slipgate processes may
// share one database (a replica set, or a single mongod). Multi-document
// transactions are not used (they need a replica set): every money change
// is a single-document atomic write, sequenced so that recovery can finish
// whatever a crash interrupts. holds.ts and ledger.ts explain the designs.
import mongoose, { type Connection } from 'mongoose';
import type { Account, AdminEvent, AdminToken, ApiKey, CreditHold, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import { toPage } from '../cursor.js';
import {
  StoreError,
  type AccountQuery,
  type AuditQuery,
  type AuditTotals,
  type HoldResult,
  type LedgerResult,
  type Page,
  type RecoveryResult,
  type Store,
  type UsageRow,
} from '../../domain/ports/store.js';
import { connectOptions, isDuplicateKey, mapError, type MongoStoreOptions } from './connection.js';
import * as doc from './docs.js';
import { accountFilter, afterCursor, all, auditFilter, NEWEST_FIRST, type Filter } from './filters.js';
import { HoldBook } from './holds.js';
import { Leases } from './leases.js';
import { Ledger } from './ledger.js';
import { usageOf } from './usage-query.js';
import { defineModels, type Models } from './schemas.js';

export type { MongoStoreOptions } from './connection.js';

/** MongoDB's "collection already exists" (createCollection is not idempotent). */
const NAMESPACE_EXISTS = 48;

export class MongoStore implements Store {
  readonly engine = 'mongo' as const;
  private readonly conn: Connection;
  private readonly m: Models;
  private readonly holds: HoldBook;
  private readonly leases: Leases;
  private readonly ledger: Ledger;
  private readonly connected: Promise<unknown>;

  /** `url` is a mongodb:// or mongodb+srv:// URL. */
  constructor(url: string, options: MongoStoreOptions = {}) {
    this.conn = mongoose.createConnection(url, connectOptions(url, options));
    // Connection errors surface on the operations (as 'unavailable'); the
    // event itself must not crash the process.
    this.conn.on('error', () => {});
    this.connected = this.conn.asPromise();
    this.connected.catch(() => {});
    this.m = defineModels(this.conn);
    this.holds = new HoldBook(this.m);
    this.leases = new Leases(this.m, this.holds);
    this.ledger = new Ledger(this.m, (id) => this.getAccount(id));
  }

  /** Runs a store call with driver errors mapped to StoreError. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mapError(err);
    }
  }

  async migrate(): Promise<void> {
    await this.call(async () => {
      await this.connected;
      // Every process runs this on start; both steps are idempotent, and
      // concurrent index builds of the same spec are merged by the server.
      for (const model of Object.values(this.m) as mongoose.Model<unknown>[]) {
        await model.createCollection().catch((err: unknown) => {
          if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err;
        });
        await model.createIndexes();
      }
    });
  }

  async ping(): Promise<void> {
    await this.call(async () => {
      await this.connected;
      await this.conn.db!.command({ ping: 1 });
    });
  }

  async close(): Promise<void> {
    await this.conn.close();
  }

  async createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account> {
    return this.call(async () => {
      await this.m.accounts.create({ _id: input.id, name: input.name, credits: 0, usage: 0, holds: [], appliedLedger: [], refusedLedger: [], createdAt: input.createdAt, deletedAt: null });
      return (await this.getAccount(input.id))!;
    });
  }

  async getAccount(id: string): Promise<Account | null> {
    return this.call(async () => {
      const d = await this.m.accounts.findById(id, doc.ACCOUNT_PROJECTION).lean<doc.AccountDoc>();
      return d ? doc.account(d) : null;
    });
  }

  async getAccounts(ids: readonly string[]): Promise<Account[]> {
    if (ids.length === 0) return [];
    return this.call(async () => (await this.m.accounts.find({ _id: { $in: [...ids] } }, doc.ACCOUNT_PROJECTION).lean<doc.AccountDoc[]>()).map(doc.account));
  }

  async listAccounts(q: AccountQuery): Promise<Page<Account>> {
    return this.call(async () => {
      const rows = await this.m.accounts.find(accountFilter(q), doc.ACCOUNT_PROJECTION).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.AccountDoc[]>();
      return toPage(rows.map(doc.account), q.limit, (a) => a.createdAt);
    });
  }

  async deleteAccount(id: string, at: Date): Promise<boolean> {
    return this.call(async () => (await this.m.accounts.updateOne({ _id: id, deletedAt: null }, { $set: { deletedAt: at } })).modifiedCount === 1);
  }

  async createApiKey(key: ApiKey): Promise<void> {
    await this.call(async () => {
      // The SQL engines' foreign key, checked by hand (no joins here).
      if (!(await this.m.accounts.exists({ _id: key.accountId }))) throw new StoreError('conflict', 'account does not exist');
      await this.m.apiKeys.create({ _id: key.id, accountId: key.accountId, prefix: key.prefix, hash: key.hash, createdAt: key.createdAt, lastUsedAt: null, revokedAt: null, allowedIps: [...key.allowedIps] });
    });
  }

  async findApiKeyByHash(hash: string): Promise<ApiKey | null> {
    return this.call(async () => {
      const d = await this.m.apiKeys.findOne({ hash }).lean<doc.ApiKeyDoc>();
      return d ? doc.apiKey(d) : null;
    });
  }

  async getApiKey(id: string): Promise<ApiKey | null> {
    return this.call(async () => {
      const d = await this.m.apiKeys.findById(id).lean<doc.ApiKeyDoc>();
      return d ? doc.apiKey(d) : null;
    });
  }

  async listApiKeys(accountId: string): Promise<ApiKey[]> {
    return this.call(async () => (await this.m.apiKeys.find({ accountId }).sort(NEWEST_FIRST).lean<doc.ApiKeyDoc[]>()).map(doc.apiKey));
  }

  async revokeApiKey(id: string, at: Date): Promise<boolean> {
    return this.call(async () => (await this.m.apiKeys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount === 1);
  }

  async setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean> {
    return this.call(async () => (await this.m.apiKeys.updateOne({ _id: id }, { $set: { allowedIps: [...allowedIps] } })).matchedCount === 1);
  }

  async touchApiKey(id: string, at: Date): Promise<void> {
    await this.call(() => this.m.apiKeys.updateOne({ _id: id }, { $set: { lastUsedAt: at } }));
  }

  async holdCredit(hold: CreditHold): Promise<HoldResult> {
    return this.call(() => this.holds.hold(hold));
  }

  async settleHold(record: VerifyTransactionRecord): Promise<void> {
    await this.call(() => this.holds.settle(record));
  }

  async releaseHold(record: RequestErrorRecord & { accountId: string }): Promise<number> {
    return this.call(() => this.holds.release(record));
  }

  async recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return this.call(async () => {
      const result = await this.leases.recoverHolds(olderThan, now);
      // The ledger's crash leftovers are finished by the same periodic pass.
      await this.ledger.recover(olderThan, now);
      return result;
    });
  }

  async startLease(instanceId: string, ttlMs: number, now: Date): Promise<void> {
    await this.call(() => this.leases.start(instanceId, ttlMs, now));
  }

  async renewLease(instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
    return this.call(() => this.leases.renew(instanceId, ttlMs, now));
  }

  async endLease(instanceId: string): Promise<void> {
    await this.call(() => this.leases.end(instanceId));
  }

  async listHolds(accountId?: string): Promise<CreditHold[]> {
    return this.call(async () => {
      const filter: Filter = accountId ? { _id: accountId } : { 'holds._id': { $exists: true } };
      const accounts = await this.m.accounts.find(filter, { holds: 1 }).lean<Pick<doc.AccountDoc, '_id' | 'holds'>[]>();
      return accounts
        .flatMap((a) => (a.holds ?? []).map((h) => doc.hold(a._id, h)))
        .sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    });
  }

  async insertRequestError(record: RequestErrorRecord): Promise<void> {
    await this.call(() => this.holds.insertRequestError(record));
  }

  async applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return this.call(() => this.ledger.apply(entry));
  }

  async listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.call(async () => {
      const filter = await this.countedLedger(accountId);
      return (await this.m.ledger.find(filter).sort(NEWEST_FIRST).limit(limit).lean<doc.LedgerDoc[]>()).map(doc.ledger);
    });
  }

  async auditTotals(accountId: string): Promise<AuditTotals | null> {
    const account = await this.getAccount(accountId);
    if (!account) return null;
    return this.call(async () => {
      const [sums, verifyTransactions] = await Promise.all([
        this.countedLedger(accountId).then((filter) => this.m.ledger.aggregate<{ total: number }>([{ $match: filter }, { $group: { _id: null, total: { $sum: '$delta' } } }])),
        this.m.verifyTransactions.countDocuments({ accountId }),
      ]);
      return { credits: account.credits, held: account.held, usage: account.usage, ledgerTotal: Number(sums[0]?.total ?? 0), verifyTransactions };
    });
  }

  /** Entries whose delta is in the account's credits (see ledger.ts). */
  private async countedLedger(accountId: string): Promise<Filter> {
    const pendingApplied = await this.ledger.appliedPendingIds(accountId);
    if (pendingApplied.length === 0) return { accountId, state: 'applied' };
    return { accountId, $or: [{ state: 'applied' }, { _id: { $in: pendingApplied } }] };
  }

  async createAdminToken(t: AdminToken): Promise<void> {
    await this.call(() => this.m.adminTokens.create({ _id: t.id, name: t.name, role: t.role, prefix: t.prefix, hash: t.hash, createdAt: t.createdAt, lastUsedAt: null, revokedAt: null }));
  }

  async findAdminTokenByHash(hash: string): Promise<AdminToken | null> {
    return this.call(async () => {
      const d = await this.m.adminTokens.findOne({ hash }).lean<doc.AdminTokenDoc>();
      return d ? doc.adminToken(d) : null;
    });
  }

  async listAdminTokens(): Promise<AdminToken[]> {
    return this.call(async () => (await this.m.adminTokens.find({}).sort(NEWEST_FIRST).lean<doc.AdminTokenDoc[]>()).map(doc.adminToken));
  }

  async revokeAdminToken(id: string, at: Date): Promise<boolean> {
    return this.call(async () => (await this.m.adminTokens.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount === 1);
  }

  async insertAdminEvent(e: AdminEvent): Promise<void> {
    const event = { actor: e.actor, action: e.action, targetId: e.targetId, reason: e.reason, details: e.details, createdAt: e.createdAt };
    await this.call(async () => {
      try {
        await this.m.adminEvents.updateOne({ _id: e.id }, { $setOnInsert: event }, { upsert: true });
      } catch (err) {
        // Two upserts of one id raced and the other inserted: the event is there.
        if (!isDuplicateKey(err)) throw err;
      }
    });
  }

  async listAdminEvents(q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
    return this.call(async () => {
      const filter = all([...(q.targetId ? [{ targetId: q.targetId }] : []), ...(q.after ? [afterCursor(q.after)] : [])]);
      const rows = await this.m.adminEvents.find(filter).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.AdminEventDoc[]>();
      return toPage(rows.map(doc.adminEvent), q.limit, (e) => e.createdAt);
    });
  }

  async listVerifyTransactions(q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
    return this.call(async () => {
      const rows = await this.m.verifyTransactions.find(auditFilter(q, 'verify_transactions')).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.VerifyTransactionDoc[]>();
      return toPage(rows.map(doc.verifyTransaction), q.limit, (r) => r.createdAt);
    });
  }

  async listRequestErrors(q: AuditQuery): Promise<Page<RequestErrorRecord>> {
    return this.call(async () => {
      const rows = await this.m.requestErrors.find(auditFilter(q, 'request_errors')).sort(NEWEST_FIRST).limit(q.limit + 1).lean<doc.RequestErrorDoc[]>();
      return toPage(rows.map(doc.requestError), q.limit, (r) => r.createdAt);
    });
  }

  async usage(q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
    return this.call(() => usageOf(this.m, q));
  }
}
