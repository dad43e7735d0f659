// Embedded store on better-sqlite3. Every money change is one SQLite
// transaction, so a crash leaves either all of it or none of it.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  Account,
  AdminEvent,
  AdminToken,
  ApiKey,
  CreditHold,
  LedgerEntry,
  RequestErrorRecord,
  VerifyTransactionRecord,
} from '../../domain/types.js';
import { decodeCursor, toPage } from '../cursor.js';
import { accountFilter, auditFilter } from '../sql/audit-filter.js';
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
import { isSameLedgerChange } from '../../domain/money-rules.js';
import { GroupCommit } from './group-commit.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { sqliteRecovery } from './recovery.js';
import * as row from './rows.js';

const BUSY_TIMEOUT_MS = 5000;
const ACCOUNT_SELECT = `SELECT a.*, (SELECT count(*) FROM credit_holds h WHERE h.account_id = a.id) AS held FROM accounts a`;
const BANGKOK_DAY = `strftime('%Y-%m-%d', created_at / 1000 + 25200, 'unixepoch')`;

export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly verifyWrite;
  /** The verify path's writes (hold, settle, release, error record). */
  private readonly writes: GroupCommit;
  private readonly recovery;

  /** `path` is a file path or ':memory:'. */
  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    switchToWal(this.db);
    // FULL: a commit is on disk before the caller hears of it, so power loss
    // never takes back an answered charge. Group commit (one fsync per batch)
    // keeps its cost down under load.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.migrateNow();
    this.stmt = this.prepare();
    this.verifyWrite = this.verifyWrites();
    this.writes = new GroupCommit(this.db);
    this.recovery = sqliteRecovery(this.db);
  }

  private migrateNow(): void {
    // Read and apply under one write lock: processes starting together on a
    // fresh file take turns, and the later ones find the work done.
    this.db.transaction(() => {
      this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
      const applied = this.db.prepare('SELECT coalesce(max(version), 0) AS v FROM schema_migrations').get() as { v: number };
      SQLITE_MIGRATIONS.forEach((sql, i) => {
        const version = i + 1;
        if (version <= applied.v) return;
        this.db.exec(sql);
        this.db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
      });
    }).immediate();
  }

  private prepare() {
    const db = this.db;
    return {
      account: db.prepare(`${ACCOUNT_SELECT} WHERE a.id = ?`),
      insertAccount: db.prepare('INSERT INTO accounts (id, name, credits, usage, created_at) VALUES (?, ?, 0, 0, ?)'),
      keyByHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      hold: db.prepare('UPDATE accounts SET credits = credits - 1 WHERE id = ? AND credits > 0 AND deleted_at IS NULL RETURNING credits'),
      insertHold: db.prepare('INSERT INTO credit_holds (id, account_id, key_id, created_at, instance_id) VALUES (?, ?, ?, ?, ?)'),
      deleteHold: db.prepare('DELETE FROM credit_holds WHERE id = ? AND account_id = ?'),
      charge: db.prepare('UPDATE accounts SET usage = usage + 1 WHERE id = ?'),
      refund: db.prepare('UPDATE accounts SET credits = credits + 1 WHERE id = ? RETURNING credits'),
      credits: db.prepare('SELECT credits FROM accounts WHERE id = ?'),
      insertVt: db.prepare(`INSERT INTO verify_transactions
        (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, source)
        VALUES (@id, @accountId, @keyId, @requestId, @qrcode, @transactionId, @amount, @sendingBank, @receivingBank, @upstream, @latencyMs, @response, @createdAt, @source)`),
      insertError: db.prepare(`INSERT OR IGNORE INTO request_errors
        (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at)
        VALUES (@id, @accountId, @keyId, @requestId, @qrcode, @transactionId, @sendingBank, @kind, @message, @upstream, @latencyMs, @createdAt)`),
      ledgerByKey: db.prepare('SELECT * FROM credit_ledger WHERE idempotency_key = ?'),
      insertLedger: db.prepare(`INSERT INTO credit_ledger (id, account_id, kind, delta, reason, actor, idempotency_key, created_at)
        VALUES (@id, @accountId, @kind, @delta, @reason, @actor, @idempotencyKey, @createdAt)`),
      addCredits: db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ? AND deleted_at IS NULL AND credits + ? >= 0'),
    };
  }

  async migrate(): Promise<void> {
    this.migrateNow();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.writes.flushAll();
    this.db.close();
  }

  async createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account> {
    this.stmt.insertAccount.run(input.id, input.name, input.createdAt.getTime());
    return row.account(this.stmt.account.get(input.id) as row.AccountRow);
  }

  async getAccount(id: string): Promise<Account | null> {
    const r = this.stmt.account.get(id) as row.AccountRow | undefined;
    return r ? row.account(r) : null;
  }

  async getAccounts(ids: readonly string[]): Promise<Account[]> {
    if (ids.length === 0) return [];
    const rows = this.db.prepare(`${ACCOUNT_SELECT} WHERE a.id IN (${ids.map(() => '?').join(',')})`).all(...ids);
    return (rows as row.AccountRow[]).map(row.account);
  }

  async listAccounts(q: AccountQuery): Promise<Page<Account>> {
    const f = accountFilter(q, (ms) => ms, 'LIKE');
    const sql = `${ACCOUNT_SELECT} ${f.where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`;
    const rows = (this.db.prepare(sql).all(...f.params, q.limit + 1) as row.AccountRow[]).map(row.account);
    return toPage(rows, q.limit, (a) => a.createdAt);
  }

  async deleteAccount(id: string, at: Date): Promise<boolean> {
    const r = this.db.prepare('UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(at.getTime(), id);
    return r.changes === 1;
  }

  async createApiKey(key: ApiKey): Promise<void> {
    try {
      this.db
        .prepare('INSERT INTO api_keys (id, account_id, prefix, hash, created_at, last_used_at, revoked_at, allowed_ips) VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)')
        .run(key.id, key.accountId, key.prefix, key.hash, key.createdAt.getTime(), row.allowedIpsParam(key.allowedIps));
    } catch (err) {
      throw mapError(err);
    }
  }

  async findApiKeyByHash(hash: string): Promise<ApiKey | null> {
    const r = this.stmt.keyByHash.get(hash) as row.ApiKeyRow | undefined;
    return r ? row.apiKey(r) : null;
  }

  async getApiKey(id: string): Promise<ApiKey | null> {
    const r = this.stmt.keyById.get(id) as row.ApiKeyRow | undefined;
    return r ? row.apiKey(r) : null;
  }

  async listApiKeys(accountId: string): Promise<ApiKey[]> {
    const rows = this.db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC').all(accountId);
    return (rows as row.ApiKeyRow[]).map(row.apiKey);
  }

  async revokeApiKey(id: string, at: Date): Promise<boolean> {
    return this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at.getTime(), id).changes === 1;
  }

  async setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean> {
    return this.db.prepare('UPDATE api_keys SET allowed_ips = ? WHERE id = ?').run(row.allowedIpsParam(allowedIps), id).changes === 1;
  }

  async touchApiKey(id: string, at: Date): Promise<void> {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at.getTime(), id);
  }

  async holdCredit(hold: CreditHold): Promise<HoldResult> {
    return this.writes.run(() => this.verifyWrite.hold(hold));
  }

  async settleHold(r: VerifyTransactionRecord): Promise<void> {
    await this.writes.run(() => this.verifyWrite.settle(r));
  }

  async releaseHold(r: RequestErrorRecord & { accountId: string }): Promise<number> {
    return this.writes.run(() => this.verifyWrite.release(r));
  }

  /** The verify path's money writes; each runs atomically in its own savepoint of a group commit. */
  private verifyWrites() {
    const hold = (h: CreditHold): HoldResult => {
      const taken = this.stmt.hold.get(h.accountId) as { credits: number } | undefined;
      if (taken) {
        this.stmt.insertHold.run(h.id, h.accountId, h.keyId, h.createdAt.getTime(), h.instanceId ?? null);
        return { status: 'held', credits: taken.credits };
      }
      const a = this.stmt.account.get(h.accountId) as row.AccountRow | undefined;
      return { status: !a || a.deleted_at !== null ? 'no_account' : 'insufficient' };
    };
    const settle = (r: VerifyTransactionRecord): void => {
      if (this.stmt.deleteHold.run(r.id, r.accountId).changes !== 1) {
        throw new StoreError('conflict', `hold ${r.id} no longer exists`);
      }
      this.stmt.insertVt.run(row.vtParams(r));
      this.stmt.charge.run(r.accountId);
    };
    const release = (r: RequestErrorRecord & { accountId: string }): number => {
      // A hold already gone (recovered) refunds nothing: report the balance as it is.
      const refunded = this.stmt.deleteHold.run(r.id, r.accountId).changes === 1 ? this.stmt.refund.get(r.accountId) : this.stmt.credits.get(r.accountId);
      this.stmt.insertError.run(row.errorParams(r));
      return (refunded as { credits: number } | undefined)?.credits ?? 0;
    };
    return { hold, settle, release };
  }

  async recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return this.recovery.recover(olderThan, now);
  }

  async startLease(instanceId: string, ttlMs: number, now: Date): Promise<void> {
    this.recovery.startLease(instanceId, ttlMs, now);
  }

  async renewLease(instanceId: string, ttlMs: number, now: Date): Promise<boolean> {
    return this.recovery.renewLease(instanceId, ttlMs, now);
  }

  async endLease(instanceId: string): Promise<void> {
    this.recovery.endLease(instanceId);
  }

  async listHolds(accountId?: string): Promise<CreditHold[]> {
    const rows = accountId
      ? this.db.prepare('SELECT * FROM credit_holds WHERE account_id = ? ORDER BY created_at').all(accountId)
      : this.db.prepare('SELECT * FROM credit_holds ORDER BY created_at').all();
    return (rows as row.HoldRow[]).map(row.hold);
  }

  async insertRequestError(r: RequestErrorRecord): Promise<void> {
    await this.writes.run(() => this.stmt.insertError.run(row.errorParams(r)));
  }

  async applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return this.db.transaction((): LedgerResult => {
      if (entry.idempotencyKey) {
        const existing = this.stmt.ledgerByKey.get(entry.idempotencyKey) as row.LedgerRow | undefined;
        if (existing) {
          const prior = row.ledger(existing);
          if (!isSameLedgerChange(prior, entry)) {
            throw new StoreError('conflict', 'idempotency key was already used for a different change');
          }
          return { entry: prior, created: false, account: row.account(this.stmt.account.get(prior.accountId) as row.AccountRow) };
        }
      }
      const a = this.stmt.account.get(entry.accountId) as row.AccountRow | undefined;
      if (!a || a.deleted_at !== null) throw new StoreError('not_found', 'account not found');
      if (this.stmt.addCredits.run(entry.delta, entry.accountId, entry.delta).changes !== 1) {
        throw new StoreError('insufficient', 'adjustment would make the balance negative');
      }
      this.stmt.insertLedger.run(row.ledgerParams(entry));
      return { entry, created: true, account: row.account(this.stmt.account.get(entry.accountId) as row.AccountRow) };
    }).immediate();
  }

  async listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    const rows = this.db.prepare('SELECT * FROM credit_ledger WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(accountId, limit);
    return (rows as row.LedgerRow[]).map(row.ledger);
  }

  async auditTotals(accountId: string): Promise<AuditTotals | null> {
    const totals = this.db
      .prepare(
        `SELECT a.credits, a.usage, (SELECT count(*) FROM credit_holds WHERE account_id = a.id) AS held,
                (SELECT coalesce(sum(delta), 0) FROM credit_ledger WHERE account_id = a.id) AS ledgerTotal,
                (SELECT count(*) FROM verify_transactions WHERE account_id = a.id) AS verifyTransactions
         FROM accounts a WHERE a.id = ?`,
      )
      .get(accountId) as AuditTotals | undefined;
    return totals ?? null;
  }

  async createAdminToken(t: AdminToken): Promise<void> {
    try {
      this.db
        .prepare('INSERT INTO admin_tokens (id, name, role, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(t.id, t.name, t.role, t.prefix, t.hash, t.createdAt.getTime());
    } catch (err) {
      throw mapError(err);
    }
  }

  async findAdminTokenByHash(hash: string): Promise<AdminToken | null> {
    const r = this.db.prepare('SELECT * FROM admin_tokens WHERE hash = ?').get(hash) as row.AdminTokenRow | undefined;
    return r ? row.adminToken(r) : null;
  }

  async listAdminTokens(): Promise<AdminToken[]> {
    return (this.db.prepare('SELECT * FROM admin_tokens ORDER BY created_at DESC, id DESC').all() as row.AdminTokenRow[]).map(row.adminToken);
  }

  async revokeAdminToken(id: string, at: Date): Promise<boolean> {
    return this.db.prepare('UPDATE admin_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at.getTime(), id).changes === 1;
  }

  async insertAdminEvent(e: AdminEvent): Promise<void> {
    this.db
      .prepare('INSERT OR IGNORE INTO admin_events (id, actor, action, target_id, reason, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(e.id, e.actor, e.action, e.targetId, e.reason, JSON.stringify(e.details), e.createdAt.getTime());
  }

  async listAdminEvents(q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (q.targetId) {
      clauses.push('target_id = ?');
      params.push(q.targetId);
    }
    if (q.after) {
      const c = decodeCursor(q.after);
      clauses.push('(created_at < ? OR (created_at = ? AND id < ?))');
      params.push(c.at, c.at, c.id);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT * FROM admin_events ${where} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...params, q.limit + 1);
    return toPage((rows as row.AdminEventRow[]).map(row.adminEvent), q.limit, (e) => e.createdAt);
  }

  async listVerifyTransactions(q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
    const f = auditFilter(q, 'verify_transactions', (ms) => ms);
    const sql = `SELECT * FROM verify_transactions ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`;
    const rows = (this.db.prepare(sql).all(...f.params, q.limit + 1) as row.VtRow[]).map(row.verifyTransaction);
    return toPage(rows, q.limit, (r) => r.createdAt);
  }

  async listRequestErrors(q: AuditQuery): Promise<Page<RequestErrorRecord>> {
    const f = auditFilter(q, 'request_errors', (ms) => ms);
    const sql = `SELECT * FROM request_errors ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`;
    const rows = (this.db.prepare(sql).all(...f.params, q.limit + 1) as row.ErrorRow[]).map(row.requestError);
    return toPage(rows, q.limit, (r) => r.createdAt);
  }

  async usage(q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
    const f = auditFilter({ ...q, limit: 0 }, 'request_errors', (ms) => ms);
    const successes = this.db
      .prepare(`SELECT account_id, ${BANGKOK_DAY} AS day, count(*) AS n FROM verify_transactions ${f.where} GROUP BY 1, 2`)
      .all(...f.params) as { account_id: string; day: string; n: number }[];
    const failures = this.db
      .prepare(`SELECT account_id, ${BANGKOK_DAY} AS day, kind, count(*) AS n FROM request_errors ${f.where} ${f.where ? 'AND' : 'WHERE'} account_id IS NOT NULL GROUP BY 1, 2, 3`)
      .all(...f.params) as { account_id: string; day: string; kind: string; n: number }[];
    return row.usageRows(successes, failures);
  }
}

function mapError(err: unknown): Error {
  const code = (err as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CONSTRAINT')) return new StoreError('conflict', 'record already exists or references a missing record', { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Switching a fresh file to WAL upgrades a shared lock to an exclusive one.
 * When two processes start on the same new file together, SQLite answers
 * one of them SQLITE_BUSY at once, without waiting (that wait could
 * deadlock), so the busy timeout does not cover it: retry here instead.
 */
function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      const busy = err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() >= deadline) throw err;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20); // constructors are synchronous
    }
  }
}
