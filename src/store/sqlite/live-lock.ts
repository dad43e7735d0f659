// The live SQLite database held by `slipgate restore` from its lease check
// until the checked copy has taken its name (restore.ts stages the copy).
// The file is switched out of WAL mode first, which needs it to itself, so
// any other process with it open makes the restore refuse; then SQLite's
// EXCLUSIVE lock keeps every other process out, readers too.
import Database from 'better-sqlite3';
import { chmodSync, linkSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { ERASURE_ACTION } from '../../domain/personal-data/erasure-register.js';
import { InputError } from '../../domain/errors.js';
import type { AdminEvent } from '../../domain/types.js';
import { fsyncPath, PRIVATE_FILE_MODE, removeWithSidecars, statOrNull } from '../../files/durable-file.js';
import { describeSqliteFailure } from './inspect.js';
import * as row from './rows.js';

export interface LiveLease {
  id: string;
  expiresAt: Date;
}

/**
 * The live database held exclusively, from the lease check until the
 * staged copy has taken its name: a server starting meanwhile waits on the
 * lock, then finds the path names another file and opens that one
 * (open-unreplaced.ts), or gives up after its busy timeout and refuses.
 */
export class LiveDatabaseLock {
  private swapped = false;

  constructor(
    private readonly db: Database.Database,
    private readonly target: string,
  ) {}

  /** The erasures recorded in the live database (domain/erasure-register.ts), oldest first. */
  erasures(): AdminEvent[] {
    if (!hasTable(this.db, 'admin_events')) return [];
    const rows = this.db.prepare('SELECT * FROM admin_events WHERE action = ? ORDER BY created_at, id').all(ERASURE_ACTION);
    return (rows as row.AdminEventRow[]).map(row.adminEvent);
  }

  /** Keeps the live file as `keepAs` (a hard link: instant, no copy; then owner-only) and renames the staged file over it. */
  swapIn(temp: string, keepAs: string): void {
    try {
      linkSync(this.target, keepAs);
      try {
        renameSync(temp, this.target);
      } catch (err) {
        rmSync(keepAs, { force: true });
        throw err;
      }
      this.swapped = true;
      chmodSync(keepAs, PRIVATE_FILE_MODE);
      fsyncPath(dirname(this.target));
    } catch (err) {
      if (!this.swapped) removeWithSidecars(temp);
      throw describeSqliteFailure(err, `could not replace ${this.target}`);
    }
  }

  /**
   * Ends the lock. The transaction wrote nothing, so ending it touches no
   * file. A database that was not replaced goes back to WAL mode, as it was;
   * the replaced one, now the kept file, stays a single self-contained file.
   */
  release(): void {
    if (!this.db.open) return;
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      if (!this.swapped) this.db.pragma('journal_mode = WAL');
    } finally {
      this.db.close();
    }
  }
}

/**
 * Takes the live database for a restore, or refuses (InputError) while a
 * server holds a live lease or any other process has the file open. Null
 * when there is no live file. Its WAL is checkpointed into the file first.
 */
export function lockLiveDatabase(target: string, now: Date): LiveDatabaseLock | null {
  if (!statOrNull(target)) return null;
  const db = new Database(target, { fileMustExist: true });
  const lock = new LiveDatabaseLock(db, target);
  try {
    db.pragma('busy_timeout = 5000');
    // First through WAL, beside any server: the plain reason when one serves it.
    refuseLiveLeases(db, target, now);
    // Leaving WAL mode needs the file to itself (it fails while any other
    // connection has it open), checkpoints the WAL into the file and removes
    // the -wal and -shm files. In rollback-journal mode an exclusive lock
    // keeps every other process out, readers too.
    if (!toRollbackJournal(db)) throw new InputError(`another process has ${target} open; close it (or stop the server), then run restore again`);
    db.exec('BEGIN EXCLUSIVE');
    // Again under the lock: nothing can have started since.
    refuseLiveLeases(db, target, now);
    return lock;
  } catch (err) {
    lock.release();
    throw describeSqliteFailure(err, `cannot take ${target} for the restore`);
  }
}

function toRollbackJournal(db: Database.Database): boolean {
  try {
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) return false;
    throw err;
  }
}

function refuseLiveLeases(db: Database.Database, target: string, now: Date): void {
  const live = liveLeases(db, now);
  if (live.length === 0) return;
  const first = live[0]!;
  throw new InputError(
    `${live.length} slipgate process(es) hold a live lease on ${target} (${first.id} until ${first.expiresAt.toISOString()}); stop every server using it, then run restore again`,
  );
}

function liveLeases(db: Database.Database, now: Date): LiveLease[] {
  if (!hasTable(db, 'instance_leases')) return [];
  const rows = db.prepare('SELECT id, expires_at FROM instance_leases WHERE expires_at >= ? ORDER BY expires_at DESC').all(now.getTime()) as { id: string; expires_at: number }[];
  return rows.map((r) => ({ id: r.id, expiresAt: new Date(r.expires_at) }));
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
