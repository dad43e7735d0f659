// Small PostgreSQL helpers: placeholder numbering, pool settings from the
// URL, and driver errors mapped to StoreError.
import { createHash } from 'node:crypto';
import type { PoolConfig } from 'pg';
import { ConstraintViolationError, StoreError } from '../../domain/ports/store.js';

/** Turns the shared `?` placeholders (see sql/audit-filter.ts) into $1..$n. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const named = new Map<string, { name: string; text: string }>();

/**
 * A statement with `?` placeholders as a named one: each pooled connection
 * parses it once and afterwards only binds and executes it. The name comes
 * from the text, so one name never stands for two texts. The texts are the
 * code's own (values are parameters), a bounded set of filter combinations.
 */
export function prepared(sql: string): { name: string; text: string } {
  let statement = named.get(sql);
  if (!statement) {
    const text = numbered(sql);
    statement = { name: `slipgate_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
    named.set(sql, statement);
  }
  return statement;
}

export interface PostgresStoreOptions {
  /** Pool size per process (URL: `?pool_max=`). Default 10. */
  max?: number;
  /** Server-side limit per statement (URL: `?statement_timeout=` in ms). Default 10 s. */
  statementTimeoutMs?: number;
  /** How long to wait for a connection (URL: `?connect_timeout=` in ms). Default 5 s. */
  connectTimeoutMs?: number;
}

const DEFAULTS = { max: 10, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 };

/**
 * Pool settings. Our own query parameters are taken out of the URL (the pg
 * parser would pass them on as strings); the rest is left to pg.
 */
export function poolConfig(url: string, options: PostgresStoreOptions = {}): PoolConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not rethrown as is: Node's error carries the input, password included.
    throw new Error('DATABASE_URL is not a valid postgres:// URL');
  }
  const take = (name: string): number | undefined => {
    const raw = parsed.searchParams.get(name);
    parsed.searchParams.delete(name);
    if (raw === null) return undefined;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`DATABASE_URL: ${name} must be a positive whole number`);
    return n;
  };
  const fromUrl = { max: take('pool_max'), statementTimeoutMs: take('statement_timeout'), connectTimeoutMs: take('connect_timeout') };
  const pick = <K extends keyof typeof DEFAULTS>(k: K): number => options[k] ?? fromUrl[k] ?? DEFAULTS[k];
  const statementTimeout = pick('statementTimeoutMs');
  return {
    connectionString: parsed.toString(),
    max: pick('max'),
    connectionTimeoutMillis: pick('connectTimeoutMs'),
    statement_timeout: statementTimeout,
    // A server that vanished without closing the socket never answers; the
    // client-side read timeout makes such a call fail instead of hang.
    query_timeout: statementTimeout + 5_000,
    // A transaction left open by a lost client must not keep row locks.
    idle_in_transaction_session_timeout: 60_000,
    keepAlive: true,
    application_name: 'slipgate',
  };
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Query read timeout|Cannot use a pool after calling end/i;

/** True when the error means the database could not be reached or lost us. */
export function isConnectionError(err: unknown): boolean {
  const code = String((err as { code?: unknown }).code ?? '');
  if (CONNECTION_CODES.has(code)) return true;
  // 08: connection exception; 57P0x: admin/crash shutdown, cannot connect now;
  // 53300: too many connections.
  if (code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300') return true;
  return code === '' && err instanceof Error && CONNECTION_MESSAGES.test(err.message);
}

/** True when PostgreSQL ended the statement as a deadlock's victim (also when mapped to StoreError). */
export function isDeadlock(err: unknown): boolean {
  const code = (e: unknown) => (e as { code?: unknown } | null)?.code;
  return code(err) === '40P01' || (err instanceof StoreError && code(err.cause) === '40P01');
}

export function mapError(err: unknown): Error {
  if (err instanceof StoreError) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  if (isConnectionError(err)) return new StoreError('unavailable', 'database unavailable', { cause: err });
  // 57014: statement_timeout or cancel; 40001/40P01: serialization failure or
  // deadlock. All transient: the caller may retry later.
  if (code === '57014' || code === '40001' || code === '40P01') return new StoreError('unavailable', 'database busy', { cause: err });
  // Class 23, integrity constraint violation, like SQLITE_CONSTRAINT: 23505
  // unique, 23503 foreign key; the others (a CHECK, NOT NULL) only a bug breaks.
  if (code.startsWith('23')) {
    const constraint = (err as { constraint?: string }).constraint ?? `SQLSTATE ${code}`;
    const message = code === '23505' || code === '23503' ? 'record already exists or references a missing record' : `record breaks the database rule ${constraint}`;
    return new ConstraintViolationError(constraint, message, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}
