// `slipgate restore` on SQLite: the backup is copied beside the live file,
// checked (a slipgate database, whole, a schema this version knows; older
// ones are migrated), and renamed over the live file only when no serving
// process holds a live lease on it. The live file is kept under another name.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, linkSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../domain/errors.js';
import { migrate } from './connection.js';
import { fsyncPath, removeWithSidecars, statOrNull, tempPathBeside } from '../../durable-file.js';
import { describeSqliteFailure, integrityProblems, schemaVersion } from './inspect.js';
import { SQLITE_MIGRATIONS } from './migrations.js';

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
    // A plain copy is right here: a backup file is not being written to.
    copyFileSync(source, temp);
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

export interface LiveLease {
  id: string;
  expiresAt: Date;
}

/**
 * Closes the live database cleanly (its WAL checkpointed into the file) and
 * refuses if any process still serves it or has it open: renaming a file
 * under an open connection would leave that process writing to the old one.
 */
export function quiesceLiveDatabase(target: string, now: Date): void {
  if (!existsSync(target)) return;
  const db = new Database(target, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const live = liveLeases(db, now);
    if (live.length > 0) {
      const first = live[0]!;
      throw new InputError(
        `${live.length} slipgate process(es) hold a live lease on ${target} (${first.id} until ${first.expiresAt.toISOString()}); stop every server using it, then run restore again`,
      );
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  // The last connection to close removes the -wal and -shm files; if they are still there, someone else has the file open.
  if (existsSync(`${target}-wal`) || existsSync(`${target}-shm`)) {
    throw new InputError(`another process has ${target} open (its -wal/-shm files remain); close it, then run restore again`);
  }
}

function liveLeases(db: Database.Database, now: Date): LiveLease[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instance_leases'").get();
  if (!table) return [];
  const rows = db.prepare('SELECT id, expires_at FROM instance_leases WHERE expires_at >= ? ORDER BY expires_at DESC').all(now.getTime()) as { id: string; expires_at: number }[];
  return rows.map((r) => ({ id: r.id, expiresAt: new Date(r.expires_at) }));
}

/**
 * Keeps the live file as `keepAs` (a hard link: instant, no copy) and renames
 * the staged file over it. Returns whether there was a live file to keep.
 */
export function swapIn(temp: string, target: string, keepAs: string): boolean {
  const hadTarget = existsSync(target);
  try {
    fsyncPath(temp);
    if (hadTarget) linkSync(target, keepAs);
    renameSync(temp, target);
    fsyncPath(dirname(target));
    return hadTarget;
  } catch (err) {
    removeWithSidecars(temp);
    throw describeSqliteFailure(err, `could not replace ${target}`);
  }
}
