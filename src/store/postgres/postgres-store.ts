// Server store on PostgreSQL (node-postgres Pool). Several slipgate processes
// may share one database, so every money change is a single statement or a
// single transaction whose guards are evaluated by PostgreSQL under row
// locks, never read-modify-write in JavaScript.
import pg from 'pg';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
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
import { usageRows } from '../usage.js';
import { PG_MIGRATIONS } from './migrations.js';
import * as recovery from './recovery.js';
import * as row from './rows.js';
import { isConnectionError, mapError, numbered, poolConfig, type PostgresStoreOptions } from './sql.js';

export type { PostgresStoreOptions } from './sql.js';

/** A named statement is parsed and planned once per connection, then only executed. */
type Statement = string | { name: string; text: string };
type Run = <R extends QueryResultRow>(sql: Statement, params?: readonly unknown[]) => Promise<QueryResult<R>>;

const ACCOUNT_SELECT = `SELECT a.*, (SELECT count(*)::int FROM credit_holds h WHERE h.account_id = a.id) AS held FROM accounts a`;
const BANGKOK_DAY = `to_char(created_at AT TIME ZONE 'Asia/Bangkok', 'YYYY-MM-DD')`;
/** Serialises migrations of every process that starts against this database. */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtext('slipgate.schema_migrations'))`;
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

// The verify path's statements, named so that each connection prepares them once.
const HOLD_CREDIT = {
  name: 'slipgate_hold_credit',
  text: `WITH taken AS (
     UPDATE accounts SET credits = credits - 1
     WHERE id = $1 AND credits > 0 AND deleted_at IS NULL
     RETURNING id, credits
   ), held AS (
     INSERT INTO credit_holds (id, account_id, key_id, created_at, instance_id)
     SELECT $2::text, id, $3::text, $4::timestamptz, $5::text FROM taken
     RETURNING id
   )
   SELECT EXISTS (SELECT 1 FROM held) AS held,
          (SELECT credits FROM taken) AS credits,
          EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL) AS live`,
};
const SETTLE_HOLD = {
  name: 'slipgate_settle_hold',
  text: `WITH claimed AS (
     DELETE FROM credit_holds WHERE id = $1 AND account_id = $2 RETURNING account_id
   ), recorded AS (
     INSERT INTO verify_transactions (${row.VT_COLUMNS})
     SELECT $1::text, account_id, $3::text, $4::text, $5::text, $6::text, $7::numeric, $8::text, $9::text, $10::text, $11::integer, $12::jsonb, $13::timestamptz, $14::text
     FROM claimed
     RETURNING id
   ), charged AS (
     UPDATE accounts SET usage = usage + 1 WHERE id IN (SELECT account_id FROM claimed)
   )
   SELECT EXISTS (SELECT 1 FROM recorded) AS settled`,
};
const RELEASE_HOLD = {
  name: 'slipgate_release_hold',
  text: `WITH released AS (
     DELETE FROM credit_holds WHERE id = $1 AND account_id = $2 RETURNING account_id
   ), refunded AS (
     UPDATE accounts SET credits = credits + 1 WHERE id IN (SELECT account_id FROM released)
     RETURNING credits
   ), recorded AS (
     INSERT INTO request_errors (${row.ERROR_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (id) DO NOTHING
   )
   SELECT coalesce((SELECT credits FROM refunded), (SELECT credits FROM accounts WHERE id = $2), 0) AS credits`,
};
const INSERT_REQUEST_ERROR = {
  name: 'slipgate_insert_request_error',
  text: `INSERT INTO request_errors (${row.ERROR_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
};

const time = (ms: number) => new Date(ms);
const params = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? row.noNul(v) : v));
const query = (sql: Statement, values: readonly unknown[]): pg.QueryConfig => ({ ...(typeof sql === 'string' ? { text: sql } : sql), values: params(values) });

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private readonly config: pg.PoolConfig;
  private readonly pool: pg.Pool;
  private readonly run: Run;

  /** `url` is a postgres:// URL; see PostgresStoreOptions for our own query parameters. */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.config = poolConfig(url, options);
    this.pool = new pg.Pool(this.config);
    // An idle connection that dies (server restart, failover) is dropped by
    // the pool and replaced on the next checkout; without a listener the
    // 'error' event would crash the process.
    this.pool.on('error', () => {});
    // A checked-out connection can die between two statements of a
    // transaction; the next statement then fails and is mapped to
    // 'unavailable', so the event itself needs no handling.
    this.pool.on('connect', (client) => client.on('error', () => {}));
    this.run = async (sql, values = []) => {
      try {
        return await this.pool.query(query(sql, values));
      } catch (err) {
        throw mapError(err);
      }
    };
  }

  /** BEGIN … COMMIT on one pooled connection; any error rolls back. */
  private async tx<T>(fn: (run: Run) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw mapError(err);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn((sql, values = []) => client.query(query(sql, values)));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      if (isConnectionError(err)) broken = err as Error;
      else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw mapError(err);
    } finally {
      // A connection in an unknown state is destroyed, not reused.
      client.release(broken);
    }
  }

  async migrate(): Promise<void> {
    // A connection of its own, without the pool's time limits: waiting for
    // another instance's migration, or building an index on a big table, may
    // take longer than a request may. Ending it rolls back a failed attempt.
    const client = new pg.Client({ ...this.config, statement_timeout: undefined, query_timeout: MIGRATION_TIMEOUT_MS });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('BEGIN');
      await client.query('SET LOCAL statement_timeout = 0');
      await client.query(MIGRATION_LOCK);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await client.query<{ v: number }>('SELECT coalesce(max(version), 0)::int AS v FROM schema_migrations');
      const applied = rows[0]?.v ?? 0;
      for (const [i, sql] of PG_MIGRATIONS.entries()) {
        const version = i + 1;
        if (version <= applied) continue;
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      }
      await client.query('COMMIT');
    } catch (err) {
      throw mapError(err);
    } finally {
      await client.end().catch(() => {});
    }
  }

  async ping(): Promise<void> {
    await this.run('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.pool.ended && !this.pool.ending) await this.pool.end();
  }

  async createAccount(input: { id: string; name: string; createdAt: Date }): Promise<Account> {
    await this.run('INSERT INTO accounts (id, name, credits, usage, created_at) VALUES ($1, $2, 0, 0, $3)', [input.id, input.name, input.createdAt]);
    return (await this.getAccount(input.id))!;
  }

  async getAccount(id: string): Promise<Account | null> {
    const { rows } = await this.run<row.AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = $1`, [id]);
    return rows[0] ? row.account(rows[0]) : null;
  }

  async getAccounts(ids: readonly string[]): Promise<Account[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.run<row.AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = ANY($1::text[])`, [ids.map(row.noNul)]);
    return rows.map(row.account);
  }

  async listAccounts(q: AccountQuery): Promise<Page<Account>> {
    // ILIKE: SQLite's LIKE is case-insensitive too.
    const f = accountFilter(q, time, 'ILIKE');
    const sql = numbered(`${ACCOUNT_SELECT} ${f.where} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`);
    const { rows } = await this.run<row.AccountRow>(sql, [...f.params, q.limit + 1]);
    return toPage(rows.map(row.account), q.limit, (a) => a.createdAt);
  }

  async deleteAccount(id: string, at: Date): Promise<boolean> {
    const r = await this.run('UPDATE accounts SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL', [at, id]);
    return r.rowCount === 1;
  }

  async createApiKey(key: ApiKey): Promise<void> {
    await this.run(
      'INSERT INTO api_keys (id, account_id, prefix, hash, created_at, last_used_at, revoked_at, allowed_ips) VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6)',
      [key.id, key.accountId, key.prefix, key.hash, key.createdAt, row.allowedIpsParam(key.allowedIps)],
    );
  }

  async findApiKeyByHash(hash: string): Promise<ApiKey | null> {
    const { rows } = await this.run<row.ApiKeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash]);
    return rows[0] ? row.apiKey(rows[0]) : null;
  }

  async getApiKey(id: string): Promise<ApiKey | null> {
    const { rows } = await this.run<row.ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] ? row.apiKey(rows[0]) : null;
  }

  async listApiKeys(accountId: string): Promise<ApiKey[]> {
    const { rows } = await this.run<row.ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC', [accountId]);
    return rows.map(row.apiKey);
  }

  async revokeApiKey(id: string, at: Date): Promise<boolean> {
    const r = await this.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    return r.rowCount === 1;
  }

  async setApiKeyAllowedIps(id: string, allowedIps: readonly string[]): Promise<boolean> {
    return ((await this.run('UPDATE api_keys SET allowed_ips = $1 WHERE id = $2', [row.allowedIpsParam(allowedIps), id])).rowCount ?? 0) === 1;
  }

  async touchApiKey(id: string, at: Date): Promise<void> {
    await this.run('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, id]);
  }

  async holdCredit(hold: CreditHold): Promise<HoldResult> {
    // One statement, so one transaction: the conditional UPDATE waits on the
    // row lock and re-checks `credits > 0` against the committed value, and
    // the hold row is written only if the credit was taken.
    const { rows } = await this.run<{ held: boolean; credits: number | null; live: boolean }>(HOLD_CREDIT, [hold.accountId, hold.id, hold.keyId, hold.createdAt, hold.instanceId ?? null]);
    const r = rows[0]!;
    if (r.held) return { status: 'held', credits: r.credits ?? 0 };
    return { status: r.live ? 'insufficient' : 'no_account' };
  }

  async settleHold(r: VerifyTransactionRecord): Promise<void> {
    // Deleting the hold is the claim: a concurrent settle, release or
    // recovery of the same hold waits on the row and then finds it gone.
    const { rows } = await this.run<{ settled: boolean }>(SETTLE_HOLD, row.vtParams(r));
    if (!rows[0]!.settled) throw new StoreError('conflict', `hold ${r.id} no longer exists`);
  }

  async releaseHold(r: RequestErrorRecord & { accountId: string }): Promise<number> {
    // The refund's own RETURNING; the fallback read (same statement) covers a hold recovery already released.
    const { rows } = await this.run<{ credits: number }>(RELEASE_HOLD, row.errorParams(r));
    return rows[0]!.credits;
  }

  async recoverStaleHolds(olderThan: Date, now: Date): Promise<RecoveryResult> {
    return recovery.recover(this.run, olderThan, now);
  }

  // Lease times come from the database clock; `now` is for the engines without one.
  async startLease(instanceId: string, ttlMs: number): Promise<void> {
    await recovery.startLease(this.run, instanceId, ttlMs);
  }

  async renewLease(instanceId: string, ttlMs: number): Promise<boolean> {
    return recovery.renewLease(this.run, instanceId, ttlMs);
  }

  async endLease(instanceId: string): Promise<void> {
    await recovery.endLease(this.run, instanceId);
  }

  async listHolds(accountId?: string): Promise<CreditHold[]> {
    const { rows } = accountId
      ? await this.run<row.HoldRow>('SELECT * FROM credit_holds WHERE account_id = $1 ORDER BY created_at', [accountId])
      : await this.run<row.HoldRow>('SELECT * FROM credit_holds ORDER BY created_at');
    return rows.map(row.hold);
  }

  async insertRequestError(r: RequestErrorRecord): Promise<void> {
    await this.run(INSERT_REQUEST_ERROR, row.errorParams(r));
  }

  async applyLedgerEntry(entry: LedgerEntry): Promise<LedgerResult> {
    return this.tx(async (run): Promise<LedgerResult> => {
      // The entry is written first: it claims the idempotency key. A
      // concurrent claim of the same key waits for ours to commit (then does
      // nothing and replays ours) or to roll back (then takes the key). A
      // NULL key never conflicts.
      let claimed: QueryResult;
      try {
        claimed = await run(
          `INSERT INTO credit_ledger (${row.LEDGER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (idempotency_key) DO NOTHING`,
          row.ledgerParams(entry),
        );
      } catch (err) {
        if ((err as { code?: string }).code === '23503') throw new StoreError('not_found', 'account not found', { cause: err });
        throw err;
      }
      if (claimed.rowCount === 0) return this.replay(run, entry);

      const credited = await run('UPDATE accounts SET credits = credits + $1 WHERE id = $2 AND deleted_at IS NULL AND credits + $1 >= 0', [entry.delta, entry.accountId]);
      if (credited.rowCount !== 1) {
        // Throwing rolls the entry back, which frees the key again.
        const { rows } = await run<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM accounts WHERE id = $1', [entry.accountId]);
        if (!rows[0] || rows[0].deleted) throw new StoreError('not_found', 'account not found');
        throw new StoreError('insufficient', 'adjustment would make the balance negative');
      }
      return { entry, created: true, account: await this.accountIn(run, entry.accountId) };
    });
  }

  /** The key was used before: the same change returns the prior entry. */
  private async replay(run: Run, entry: LedgerEntry): Promise<LedgerResult> {
    const { rows } = await run<row.LedgerRow>('SELECT * FROM credit_ledger WHERE idempotency_key = $1', [entry.idempotencyKey]);
    const prior = row.ledger(rows[0]!);
    if (!isSameLedgerChange(prior, entry)) {
      throw new StoreError('conflict', 'idempotency key was already used for a different change');
    }
    return { entry: prior, created: false, account: await this.accountIn(run, prior.accountId) };
  }

  private async accountIn(run: Run, id: string): Promise<Account> {
    const { rows } = await run<row.AccountRow>(`${ACCOUNT_SELECT} WHERE a.id = $1`, [id]);
    return row.account(rows[0]!);
  }

  async listLedger(accountId: string, limit: number): Promise<LedgerEntry[]> {
    const { rows } = await this.run<row.LedgerRow>(
      'SELECT * FROM credit_ledger WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
      [accountId, limit],
    );
    return rows.map(row.ledger);
  }

  async auditTotals(accountId: string): Promise<AuditTotals | null> {
    const { rows } = await this.run<{ credits: number; usage: number; held: number; ledger_total: string; vts: number }>(
      `SELECT a.credits, a.usage, (SELECT count(*)::int FROM credit_holds WHERE account_id = a.id) AS held,
              (SELECT coalesce(sum(delta), 0) FROM credit_ledger WHERE account_id = a.id) AS ledger_total,
              (SELECT count(*)::int FROM verify_transactions WHERE account_id = a.id) AS vts
       FROM accounts a WHERE a.id = $1`,
      [accountId],
    );
    const r = rows[0];
    return r ? { credits: r.credits, usage: r.usage, held: r.held, ledgerTotal: Number(r.ledger_total), verifyTransactions: r.vts } : null;
  }

  async createAdminToken(t: AdminToken): Promise<void> {
    await this.run('INSERT INTO admin_tokens (id, name, role, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      t.id,
      t.name,
      t.role,
      t.prefix,
      t.hash,
      t.createdAt,
    ]);
  }

  async findAdminTokenByHash(hash: string): Promise<AdminToken | null> {
    const { rows } = await this.run<row.AdminTokenRow>('SELECT * FROM admin_tokens WHERE hash = $1', [hash]);
    return rows[0] ? row.adminToken(rows[0]) : null;
  }

  async listAdminTokens(): Promise<AdminToken[]> {
    const { rows } = await this.run<row.AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at DESC, id DESC');
    return rows.map(row.adminToken);
  }

  async revokeAdminToken(id: string, at: Date): Promise<boolean> {
    const r = await this.run('UPDATE admin_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    return r.rowCount === 1;
  }

  async insertAdminEvent(e: AdminEvent): Promise<void> {
    await this.run('INSERT INTO admin_events (id, actor, action, target_id, reason, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING', row.adminEventParams(e));
  }

  async listAdminEvents(q: { targetId?: string; limit: number; after?: string | null }): Promise<Page<AdminEvent>> {
    const clauses: string[] = [];
    const values: unknown[] = [];
    if (q.targetId) {
      clauses.push('target_id = ?');
      values.push(q.targetId);
    }
    if (q.after) {
      const c = decodeCursor(q.after);
      clauses.push('(created_at < ? OR (created_at = ? AND id < ?))');
      values.push(time(c.at), time(c.at), c.id);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const { rows } = await this.run<row.AdminEventRow>(numbered(`SELECT * FROM admin_events ${where} ORDER BY created_at DESC, id DESC LIMIT ?`), [...values, q.limit + 1]);
    return toPage(rows.map(row.adminEvent), q.limit, (e) => e.createdAt);
  }

  async listVerifyTransactions(q: AuditQuery): Promise<Page<VerifyTransactionRecord>> {
    const f = auditFilter(q, 'verify_transactions', time);
    const sql = numbered(`SELECT * FROM verify_transactions ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`);
    const { rows } = await this.run<row.VtRow>(sql, [...f.params, q.limit + 1]);
    return toPage(rows.map(row.verifyTransaction), q.limit, (r) => r.createdAt);
  }

  async listRequestErrors(q: AuditQuery): Promise<Page<RequestErrorRecord>> {
    const f = auditFilter(q, 'request_errors', time);
    const sql = numbered(`SELECT * FROM request_errors ${f.where} ORDER BY created_at DESC, id DESC LIMIT ?`);
    const { rows } = await this.run<row.ErrorRow>(sql, [...f.params, q.limit + 1]);
    return toPage(rows.map(row.requestError), q.limit, (r) => r.createdAt);
  }

  async usage(q: { accountId?: string; from?: Date; to?: Date }): Promise<UsageRow[]> {
    const f = auditFilter({ ...q, limit: 0 }, 'request_errors', time);
    const [successes, failures] = await Promise.all([
      this.run<{ account_id: string; day: string; n: number }>(
        numbered(`SELECT account_id, ${BANGKOK_DAY} AS day, count(*)::int AS n FROM verify_transactions ${f.where} GROUP BY 1, 2`),
        f.params,
      ),
      this.run<{ account_id: string; day: string; kind: string; n: number }>(
        numbered(
          `SELECT account_id, ${BANGKOK_DAY} AS day, kind, count(*)::int AS n FROM request_errors ${f.where} ${f.where ? 'AND' : 'WHERE'} account_id IS NOT NULL GROUP BY 1, 2, 3`,
        ),
        f.params,
      ),
    ]);
    return usageRows(successes.rows, failures.rows);
  }
}
