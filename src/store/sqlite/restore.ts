// `slipgate restore` on SQLite: the backup is copied beside the live file,
// given the live file's owner and mode, checked (a slipgate database,
// whole, a schema this version knows; older ones are migrated), and renamed
// over the live file under an exclusive lock taken when no serving process
// holds a live lease on it. The live file is kept under another name.
import Database from 'better-sqlite3';
import { chmodSync, chownSync, copyFileSync, linkSync, renameSync, rmSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../domain/errors.js';
import type { AdminEvent } from '../../domain/types.js';
import { ERASURE_ACTION } from '../../domain/erasure-register.js';
import { migrate } from './connection.js';
import { createPrivateFile, fsyncPath, PRIVATE_FILE_MODE, removeWithSidecars, statOrNull, tempPathBeside } from '../../durable-file.js';
import { describeSqliteFailure, integrityProblems, schemaVersion } from './inspect.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import * as row from './rows.js';

export interface StagedRestore {
  temp: string;
  fromVersion: number;
  toVersion: number;
  /** Leases the backup recorded, marked expired: no process of the backup serves the restored file. */
  leasesExpired: number;
}

/** Copies and checks `source`; throws InputError with the reason, leaving nothing behind. */
export function stageRestore(source: string, target: string, now: Date): StagedRestore {
  const stat = statOrNull(source);
  if (!stat) throw new InputError(`no file at ${source}`);
  if (!stat.isFile()) throw new InputError(`${source} is not a file`);
  if (!statOrNull(dirname(target))?.isDirectory()) throw new InputError(`the database folder ${dirname(target)} does not exist`);
  const temp = tempPathBeside(target);
  try {
    createPrivateFile(temp);
    // A plain copy is right here: a backup file is not being written to.
    copyFileSync(source, temp);
    takeOwnerAndMode(temp, target);
    const db = new Database(temp, { fileMustExist: true });
    try {
      const fromVersion = schemaVersion(db);
      if (fromVersion === null) throw new InputError(`${source} is not a slipgate database (no schema_migrations table)`);
      const problems = integrityProblems(db);
      if (problems.length > 0) throw new InputError(`${source} is damaged (truncated or overwritten): ${problems.slice(0, 3).join('; ')}`);
      const known = SQLITE_MIGRATIONS.length;
      if (fromVersion > known) {
        throw new InputError(`${source} has schema version ${fromVersion}, newer than this slipgate knows (${known}); restore it with the slipgate version that wrote it`);
      }
      migrate(db);
      const leasesExpired = db.prepare('UPDATE instance_leases SET expires_at = ? WHERE expires_at >= ?').run(now.getTime() - 1, now.getTime()).changes;
      return { temp, fromVersion, toVersion: known, leasesExpired };
    } finally {
      db.close();
    }
  } catch (err) {
    removeWithSidecars(temp);
    throw describeSqliteFailure(err, `cannot restore from ${source}`);
  }
}

/**
 * The service must still write the file a restore puts in place, even when
 * root runs the restore: the copy gets the live file's owner and mode, or,
 * with no live file, the folder's owner and mode 0600. Refuses, naming the
 * owner the service needs, when this process cannot give it that owner.
 */
function takeOwnerAndMode(temp: string, target: string): void {
  const live = statOrNull(target);
  const owner: Stats = live ?? statSync(dirname(target));
  chmodSync(temp, live ? live.mode & 0o7777 : PRIVATE_FILE_MODE);
  const mine = statSync(temp);
  if (mine.uid === owner.uid && mine.gid === owner.gid) return;
  try {
    chownSync(temp, owner.uid, owner.gid);
  } catch {
    const me = process.getuid ? `uid ${process.getuid()}` : 'this user';
    throw new InputError(
      `the restored database must belong to uid ${owner.uid} (gid ${owner.gid}), the owner of ${live ? target : dirname(target)}, so the service can write it; this process (${me}) cannot give it that owner: run restore as that user or as root`,
    );
  }
}

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

/**
 * Puts the staged copy at `target` where there was no database: a hard
 * link, which unlike a rename never replaces a file that appeared meanwhile
 * (a server that started and created an empty one).
 */
export function placeNew(temp: string, target: string): void {
  try {
    linkSync(temp, target);
    rmSync(temp);
    fsyncPath(dirname(target));
  } catch (err) {
    removeWithSidecars(temp);
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new InputError(`a database appeared at ${target} during the restore (did a server start?); nothing was replaced: run restore again`);
    throw describeSqliteFailure(err, `could not put the restored database at ${target}`);
  }
}

/**
 * Rewrites the staged copy whole (VACUUM) and flushes it: the pages a
 * re-applied erasure freed or overwrote keep no personal bytes.
 */
export function compactStaged(temp: string): void {
  try {
    const db = new Database(temp, { fileMustExist: true });
    try {
      db.exec('VACUUM');
    } finally {
      db.close();
    }
    fsyncPath(temp);
  } catch (err) {
    removeWithSidecars(temp);
    throw describeSqliteFailure(err, 'could not compact the restored copy');
  }
}
