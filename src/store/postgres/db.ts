// The PostgreSQL connection pool and the two ways to use it: one statement
// (`run`), or one transaction on one connection (`tx`). Every section of the
// store (accounts.ts, holds.ts, ledger.ts, admin.ts, audit.ts) goes through
// these, so connection failures are mapped to StoreError in one place.
import pg from 'pg';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
import { PG_MIGRATIONS } from './migrations.js';
import { refuseNewerSchema } from '../schema-version.js';
import { describeDatabaseUrl } from '../database-url.js';
import * as row from './rows.js';
import { settleBatch, type Settle } from './settle-batch.js';
import { holdBatch } from './hold-batch.js';
import type { StatementBatch } from './statement-batch.js';
import type { CreditHold } from '../../domain/types.js';
import type { HoldResult } from '../../domain/ports/store.js';
import { isConnectionError, mapError, poolConfig, type PostgresStoreOptions } from './sql.js';

/** A named statement is parsed and planned once per connection, then only executed. */
type Statement = string | { name: string; text: string };
export type Run = <R extends QueryResultRow>(sql: Statement, params?: readonly unknown[]) => Promise<QueryResult<R>>;

export const ACCOUNT_SELECT = `SELECT a.*, (SELECT count(*)::int FROM credit_holds h WHERE h.account_id = a.id) AS held FROM accounts a`;
export const time = (ms: number) => new Date(ms);

/** Serialises migrations of every process that starts against this database. */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtext('slipgate.schema_migrations'))`;
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

const params = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? row.noNul(v) : v));
const query = (sql: Statement, values: readonly unknown[]): pg.QueryConfig => ({ ...(typeof sql === 'string' ? { text: sql } : sql), values: params(values) });

export class PgDb {
  private readonly config: pg.PoolConfig;
  private readonly pool: pg.Pool;
  /** The URL without its password, for messages. */
  private readonly described: string;
  readonly run: Run;
  /** Settles, group-committed across requests. */
  readonly settles: StatementBatch<Settle, void>;
  /** Holds of concurrent requests, one statement per batch. */
  readonly holds: StatementBatch<CreditHold, HoldResult>;

  /** `url` is a postgres:// URL; see PostgresStoreOptions for our own query parameters. */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.config = poolConfig(url, options);
    this.described = describeDatabaseUrl(url);
    this.pool = quietPool(this.config);
    this.run = runOn(this.pool);
    this.settles = settleBatch(this.run);
    this.holds = holdBatch(this.run);
  }

  /** BEGIN … COMMIT on one pooled connection; any error rolls back. */
  async tx<T>(fn: (run: Run) => Promise<T>): Promise<T> {
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
      refuseNewerSchema(applied, PG_MIGRATIONS.length, this.described);
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

  /**
   * Statements that may not run in a transaction and may take long (VACUUM):
   * on a connection of their own, without the pool's statement timeout.
   */
  async maintenance(statements: readonly string[]): Promise<void> {
    const client = new pg.Client({ ...this.config, statement_timeout: undefined, query_timeout: MIGRATION_TIMEOUT_MS });
    client.on('error', () => {});
    try {
      await client.connect();
      for (const sql of statements) await client.query(sql);
    } catch (err) {
      throw mapError(err);
    } finally {
      await client.end().catch(() => {});
    }
  }

  async ping(): Promise<void> {
    await this.run('SELECT 1');
  }

  /** No slipgate tables yet (never migrated): what a reading command must not create. */
  async isEmpty(): Promise<boolean> {
    const { rows } = await this.run<{ missing: boolean }>("SELECT to_regclass('schema_migrations') IS NULL AS missing");
    return rows[0]!.missing;
  }

  async close(): Promise<void> {
    if (!this.pool.ended && !this.pool.ending) await this.pool.end();
  }
}

function quietPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle connection that dies (server restart, failover) is dropped by
  // the pool and replaced on the next checkout; without a listener the
  // 'error' event would crash the process.
  pool.on('error', () => {});
  // A checked-out connection can die between two statements of a
  // transaction; the next statement then fails and is mapped to
  // 'unavailable', so the event itself needs no handling.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

function runOn(pool: pg.Pool): Run {
  return async (sql, values = []) => {
    try {
      return await pool.query(query(sql, values));
    } catch (err) {
      throw mapError(err);
    }
  };
}
