// Server store on PostgreSQL (node-postgres Pool). Several slipgate processes
// may share one database, so every money change is a single statement or a
// single transaction whose guards are evaluated by PostgreSQL under row
// locks, never read-modify-write in JavaScript. The operations live in one
// file per section; this class only hands each to its section.
import type { AccountQuery, AuditQuery, AuditTotals, HoldResult, LedgerResult, Page, RecoveryResult, Store, UsageRow } from '../../domain/ports/store.js';
import type { Account, AdminEvent, AdminToken, ApiKey, CreditHold, LedgerEntry, RequestErrorRecord, VerifyTransactionRecord } from '../../domain/types.js';
import * as accounts from './accounts.js';
import * as admin from './admin.js';
import * as audit from './audit.js';
import { PgDb } from './db.js';
import * as holds from './holds.js';
import * as ledger from './ledger.js';
import type { PostgresStoreOptions } from './sql.js';

export type { PostgresStoreOptions } from './sql.js';

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private readonly db: PgDb;

  /** `url` is a postgres:// URL; see PostgresStoreOptions for our own query parameters. */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.db = new PgDb(url, options);
  }

  migrate(): Promise<void> {
    return this.db.migrate();
  }

  ping(): Promise<void> {
    return this.db.ping();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account> {
    return accounts.createAccount(this.db, input);
  }

  getAccount(id: string): Promise<Account | null> {
    return accounts.getAccount(this.db, id);
  }

  getAccounts(ids: readonly string[]): Promise<Account[]> {
    return accounts.getAccounts(this.db, ids);
  }

  listAccounts(q: AccountQuery): Promise<Page<Account>> {
    return accounts.listAccounts(this.db, q);
  }

  deleteAccount(id: string, at: Date): Promise<boolean> {
    return accounts.deleteAccount(this.db, id, at);
  }

  createApiKey(key: ApiKey): Promise<void> {
    return accounts.createApiKey(this.db, key);
  }

  findApiKeyByHash(hash: string): Promise<ApiKey | null> {
    return accounts.findApiKeyByHash(this.db, hash);
  }

  getApiKey(id: string): Promise<ApiKey | null> {
    return accounts.getApiKey(this.db, id);
  }

  listApiKeys(accountId: string): Promise<ApiKey[]> {
    return accounts.listApiKeys(this.db, accountId);
  }

  revokeApiKey(id: string, at: Date): Promise<boolean> {
    return accounts.revokeApiKey(this.db, id, at);
  }

  setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean> {
    return accounts.setApiKeyAllowedIps(this.db, id, allowedIps);
  }

  touchApiKey(id: string, at: Date): Promise<void> {
    return accounts.touchApiKey(this.db, id, at);
  }

  holdCredit(hold: CreditHold): Promise<HoldResult> {
    return holds.holdCredit(this.db, hold);
  }

  settleHold(r: VerifyTransactionRecord): Promise<void> {
    return holds.settleHold(this.db, r);
  }

  releaseHold(r: RequestErrorRecord & { accountId: string }): Promise<number> {
    return holds.releaseHold(this.db, r);
  }

  recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return holds.recoverStaleHolds(this.db, olderThan, now);
  }

  startLease(instanceId: string, ttlMs: number): Promise<void> {
    return holds.startLease(this.db, instanceId, ttlMs);
  }

  renewLease(instanceId: string, ttlMs: number): Promise<boolean> {
    return holds.renewLease(this.db, instanceId, ttlMs);
  }

  endLease(instanceId: string): Promise<void> {
    return holds.endLease(this.db, instanceId);
  }

  listHolds(accountId?: string): Promise<CreditHold[]> {
    return holds.listHolds(this.db, accountId);
  }

  insertRequestError(r: RequestErrorRecord): Promise<void> {
    return holds.insertRequestError(this.db, r);
  }

  applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return ledger.applyLedgerEntry(this.db, entry);
  }

  listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return ledger.listLedger(this.db, accountId, limit);
  }

  auditTotals(accountId: string): Promise<AuditTotals | null> {
    return ledger.auditTotals(this.db, accountId);
  }

  createAdminToken(t: AdminToken): Promise<void> {
    return admin.createAdminToken(this.db, t);
  }

  findAdminTokenByHash(hash: string): Promise<AdminToken | null> {
    return admin.findAdminTokenByHash(this.db, hash);
  }

  listAdminTokens(): Promise<AdminToken[]> {
    return admin.listAdminTokens(this.db);
  }

  revokeAdminToken(id: string, at: Date): Promise<boolean> {
    return admin.revokeAdminToken(this.db, id, at);
  }

  insertAdminEvent(e: AdminEvent): Promise<void> {
    return admin.insertAdminEvent(this.db, e);
  }

  listAdminEvents(q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
    return admin.listAdminEvents(this.db, q);
  }

  listVerifyTransactions(q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
    return audit.listVerifyTransactions(this.db, q);
  }

  listRequestErrors(q: AuditQuery): Promise<Page<RequestErrorRecord>> {
    return audit.listRequestErrors(this.db, q);
  }

  usage(q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
    return audit.usage(this.db, q);
  }
}
