// Opening a SQLite file for the store: WAL, synchronous=FULL, migrations,
// and the statements the hot paths prepare once. Every section of the store
// (accounts.ts, holds.ts, ledger.ts, admin.ts, audit.ts) works on the Lite
// this returns.
import { refuseNewerSchema } from '../schema-version.js';
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { GroupCommit } from './group-commit.js';
import { StoreFailure } from './store-failure.js';
import { walSync, type WalSync } from './wal-sync.js';
import { verifyWrites } from './verify-writes.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { sqliteRecovery } from './recovery.js';
import { openUnreplaced } from './open-unreplaced.js';
import { DELIVERY_COLUMNS } from '../sql/webhooks.js';
import { PRIVATE_FILE_MODE } from '../../files/durable-file.js';

const BUSY_TIMEOUT_MS = 5000;
export const ACCOUNT_SELECT = `SELECT a.*, (SELECT count(*) FROM credit_holds h WHERE h.account_id = a.id) AS held FROM accounts a`;

export type Statements = ReturnType<typeof prepare>;

export interface Lite {
  db: Database.Database;
  stmt: Statements;
  /** Any other statement, prepared on first use and kept for this connection. */
  sql: (text: string) => Database.Statement;
  verifyWrite: ReturnType<typeof verifyWrites>;
  /** The verify path's writes (hold, settle, release, error record). */
  writes: GroupCommit;
  /** Syncs the WAL for the group commit's durable writes. */
  wal: WalSync;
  recovery: ReturnType<typeof sqliteRecovery>;
  /** Set for good once a write's effect on disk is unknown (store-failure.ts). */
  failure: StoreFailure;
}

/** `path` is a file path or ':memory:'; `readonly` opens an existing file as it is, to read (a backup's check). */
export function openLite(path: string, { readonly = false }: { readonly?: boolean } = {}): Lite {
  const db = readonly ? openReadOnly(path) : openForWriting(path);
  const stmt = prepare(db, readonly);
  const wal = walSync(path === ':memory:' || readonly ? null : `${path}-wal`);
  const failure = new StoreFailure();
  return { db, stmt, sql: statementCache(db), verifyWrite: verifyWrites(stmt), writes: new GroupCommit(db, wal, failure), wal, recovery: sqliteRecovery(db, stmt), failure };
}

/** No WAL switch, no migration, no checkpoint: the file's bytes stay as they are. */
function openReadOnly(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * A new database holds names and account numbers: created readable by its
 * owner only, whatever the umask (SQLite would make it 0644 less the umask).
 * SQLite gives the -wal and -shm files the database file's mode. A folder it
 * has to make is the owner's only too. An existing file keeps its mode.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

function openForWriting(path: string): Database.Database {
  if (path !== ':memory:') createPrivately(path);
  const db = path === ':memory:' ? new Database(path) : openUnreplaced(path, BUSY_TIMEOUT_MS);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  switchToWal(db);
  // FULL: a commit is on disk before the caller hears of it, so power loss
  // never takes back an answered charge. The verify path's group commit
  // gets the same guarantee with the fsync off the event loop.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Each write of a group-commit batch runs in a savepoint, and the savepoints'
  // undo pages (the sub-journal) would otherwise spill to a temporary file
  // past 64 KiB: a file created, unlinked and written for nearly every batch.
  // In memory they are bounded by the batch (MAX_BATCH writes of a few pages)
  // and never need to survive a crash: a transaction interrupted mid-way is
  // undone from the WAL, not from them.
  db.pragma('temp_store = MEMORY');
  enableSecureDelete(db);
  migrate(db);
  checkpointAtStart(db);
  return db;
}

/**
 * SQLite reuses freed space without clearing it, so a redacted name would
 * stay in the file's bytes (and every backup copied from them) until
 * overwritten by chance. With secure_delete, freed cells and pages are
 * zeroed as they are freed. It is a per-connection setting that a build may
 * pin off (SQLITE_SECURE_DELETE): read it back rather than assume.
 */
function enableSecureDelete(db: Database.Database): void {
  db.pragma('secure_delete = ON');
  if (db.pragma('secure_delete', { simple: true }) !== 1) throw new Error('this SQLite build does not honour PRAGMA secure_delete=ON: erased personal data would stay in the file');
}

/**
 * Recovery's last step, like PostgreSQL's end-of-recovery checkpoint. After
 * a failed fsync (store-failure.ts) the process exits, and the WAL pages the
 * kernel could not write may still sit in the page cache, marked clean: the
 * next process reads them, but no fsync of the WAL will ever write them. A
 * checkpoint copies every frame it reads into the database file, as fresh
 * writes, and fsyncs that; a checkpoint that fails throws, and the process
 * does not start. PASSIVE never waits: frames a still-running reader (another
 * worker) pins are left, which is why a failed worker stops all of them
 * (serve-cluster.ts).
 */
function checkpointAtStart(db: Database.Database): void {
  db.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * Preparing compiles and plans the SQL; a statement is a handle that can run
 * again. The texts come from the code, never from input (values are bound),
 * and the dynamic ones are combinations of a few filters, so the cache stays
 * small without eviction.
 */
function statementCache(db: Database.Database): (text: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (text) => {
    let statement = cache.get(text);
    if (!statement) {
      statement = db.prepare(text);
      cache.set(text, statement);
    }
    return statement;
  };
}

export function migrate(db: Database.Database): void {
  // Read and apply under one write lock: processes starting together on a
  // fresh file take turns, and the later ones find the work done.
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const applied = db.prepare('SELECT coalesce(max(version), 0) AS v FROM schema_migrations').get() as { v: number };
    refuseNewerSchema(applied.v, SQLITE_MIGRATIONS.length, db.name);
    SQLITE_MIGRATIONS.forEach((sql, i) => {
      const version = i + 1;
      if (version <= applied.v) return;
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
    });
  }).immediate();
}

/** The hot paths' statements, prepared once per connection. */
export const STATEMENTS = {
  account: `${ACCOUNT_SELECT} WHERE a.id = ?`,
  insertAccount: 'INSERT INTO accounts (id, name, credits, usage, created_at) VALUES (?, ?, 0, 0, ?)',
  keyByHash: 'SELECT * FROM api_keys WHERE hash = ?',
  keyById: 'SELECT * FROM api_keys WHERE id = ?',
  hold: 'UPDATE accounts SET credits = credits - 1 WHERE id = ? AND credits > 0 AND deleted_at IS NULL RETURNING credits',
  insertHold: 'INSERT INTO credit_holds (id, account_id, key_id, created_at, instance_id) VALUES (?, ?, ?, ?, ?)',
  deleteHold: 'DELETE FROM credit_holds WHERE id = ? AND account_id = ?',
  charge: 'UPDATE accounts SET usage = usage + 1 WHERE id = ?',
  refund: 'UPDATE accounts SET credits = credits + 1 WHERE id = ? RETURNING credits',
  credits: 'SELECT credits FROM accounts WHERE id = ?',
  insertVt: `INSERT INTO verify_transactions
    (id, account_id, key_id, request_id, qrcode, transaction_id, amount, sending_bank, receiving_bank, upstream, latency_ms, response, created_at, source, line_user_id)
    VALUES (@id, @accountId, @keyId, @requestId, @qrcode, @transactionId, @amount, @sendingBank, @receivingBank, @upstream, @latencyMs, @response, @createdAt, @source, @lineUserId)`,
  insertError: `INSERT OR IGNORE INTO request_errors
    (id, account_id, key_id, request_id, qrcode, transaction_id, sending_bank, kind, message, upstream, latency_ms, created_at, line_user_id)
    VALUES (@id, @accountId, @keyId, @requestId, @qrcode, @transactionId, @sendingBank, @kind, @message, @upstream, @latencyMs, @createdAt, @lineUserId)`,
  ledgerByKey: 'SELECT * FROM credit_ledger WHERE idempotency_key = ?',
  insertLedger: `INSERT INTO credit_ledger (id, account_id, kind, delta, reason, actor, idempotency_key, created_at)
    VALUES (@id, @accountId, @kind, @delta, @reason, @actor, @idempotencyKey, @createdAt)`,
  addCredits: 'UPDATE accounts SET credits = credits + ? WHERE id = ? AND deleted_at IS NULL AND credits + ? >= 0',
  insertDelivery: `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
};

type Prepared = { [K in keyof typeof STATEMENTS]: Database.Statement };

/**
 * Eagerly for a store that serves (a broken statement fails the start, not a
 * request); lazily for a read-only file, whose older schema may lack the
 * tables and columns of writes it never makes (a backup's check).
 */
function prepare(db: Database.Database, lazy: boolean): Prepared {
  if (lazy) {
    const cache = new Map<string, Database.Statement>();
    return new Proxy({} as Prepared, {
      get: (_target, name: string) => cache.get(name) ?? cache.set(name, db.prepare(STATEMENTS[name as keyof typeof STATEMENTS])).get(name),
    });
  }
  const prepared = Object.entries(STATEMENTS).map(([name, sql]) => [name, db.prepare(sql)] as const);
  return Object.fromEntries(prepared) as Prepared;
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
