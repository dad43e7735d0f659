// Embedded store on better-sqlite3. Every money change is one SQLite
// transaction, so a crash leaves either all of it or none of it. The
// operations live in one file per section; this class only hands each to
// its section.
import type { AccountQuery, AuditQuery, AuditTotals, HoldResult, LedgerResult, Page, RecoveryResult, Store, UsageRow } from '../../domain/ports/store.js';
import type { Account, AdminEvent, AdminToken, ApiKey, CreditHold, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { migrate, openLite, type Lite } from './connection.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';

export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly lite: Lite;

  /** `path` is a file path or ':memory:'. */
  constructor(path: string) {
    this.lite = openLite(path);
  }

  async migrate(): Promise<void> {
    migrate(this.lite.db);
  }

  async ping(): Promise<void> {
    this.lite.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (!this.lite.db.open) return;
    this.lite.writes.flushAll();
    this.lite.db.close();
  }

  createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account> {
    return accounts.createAccount(this.lite, input);
  }

  getAccount(id: string): Promise<Account | null> {
    return accounts.getAccount(this.lite, id);
  }

  getAccounts(ids: readonly string[]): Promise<Account[]> {
    return accounts.getAccounts(this.lite, ids);
  }

  listAccounts(q: AccountQuery): Promise<Page<Account>> {
    return accounts.listAccounts(this.lite, q);
  }

  deleteAccount(id: string, at: Date): Promise<boolean> {
    return accounts.deleteAccount(this.lite, id, at);
  }

  createApiKey(key: ApiKey): Promise<void> {
    return accounts.createApiKey(this.lite, key);
  }

  findApiKeyByHash(hash: string): Promise<ApiKey | null> {
    return accounts.findApiKeyByHash(this.lite, hash);
  }

  getApiKey(id: string): Promise<ApiKey | null> {
    return accounts.getApiKey(this.lite, id);
  }

  listApiKeys(accountId: string): Promise<ApiKey[]> {
    return accounts.listApiKeys(this.lite, accountId);
  }

  revokeApiKey(id: string, at: Date): Promise<boolean> {
    return accounts.revokeApiKey(this.lite, id, at);
  }

  setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean> {
    return accounts.setApiKeyAllowedIps(this.lite, id, allowedIps);
  }

  touchApiKey(id: string, at: Date): Promise<void> {
    return accounts.touchApiKey(this.lite, id, at);
  }

  holdCredit(hold: CreditHold): Promise<HoldResult> {
    return holds.holdCredit(this.lite, hold);
  }

  settleHold(r: VerifyTransactionRecord): Promise<void> {
    return holds.settleHold(this.lite, r);
  }

  releaseHold(r: RequestErrorRecord & { accountId: string }): Promise<number> {
    return holds.releaseHold(this.lite, r);
  }

  recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return holds.recoverStaleHolds(this.lite, olderThan, now);
  }

  startLease(instanceId: string, ttlMs: number, now: Date): Promise<void> {
    return holds.startLease(this.lite, instanceId, ttlMs, now);
  }

  renewLease(instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
    return holds.renewLease(this.lite, instanceId, ttlMs, now);
  }

  endLease(instanceId: string): Promise<void> {
    return holds.endLease(this.lite, instanceId);
  }

  listHolds(accountId?: string): Promise<CreditHold[]> {
    return holds.listHolds(this.lite, accountId);
  }

  insertRequestError(r: RequestErrorRecord): Promise<void> {
    return holds.insertRequestError(this.lite, r);
  }

  applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return ledger.applyLedgerEntry(this.lite, entry);
  }

  listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return ledger.listLedger(this.lite, accountId, limit);
  }

  auditTotals(accountId: string): Promise<AuditTotals | null> {
    return ledger.auditTotals(this.lite, accountId);
  }

  createAdminToken(t: AdminToken): Promise<void> {
    return admin.createAdminToken(this.lite, t);
  }

  findAdminTokenByHash(hash: string): Promise<AdminToken | null> {
    return admin.findAdminTokenByHash(this.lite, hash);
  }

  listAdminTokens(): Promise<AdminToken[]> {
    return admin.listAdminTokens(this.lite);
  }

  revokeAdminToken(id: string, at: Date): Promise<boolean> {
    return admin.revokeAdminToken(this.lite, id, at);
  }

  insertAdminEvent(e: AdminEvent): Promise<void> {
    return admin.insertAdminEvent(this.lite, e);
  }

  listAdminEvents(q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
    return admin.listAdminEvents(this.lite, q);
  }

  listVerifyTransactions(q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
    return audit.listVerifyTransactions(this.lite, q);
  }

  listRequestErrors(q: AuditQuery): Promise<Page<RequestErrorRecord>> {
    return audit.listRequestErrors(this.lite, q);
  }

  usage(q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
    return audit.usage(this.lite, q);
  }
}
