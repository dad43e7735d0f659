// `slipgate restore` on SQLite: the backup is copied beside the live file,
// given the live file's owner and mode, and checked (a slipgate database,
// whole, a schema this version knows; older ones are migrated). It takes
// the live file's name under the lock of live-lock.ts, or, with no live
// file, here (placeNew).
import Database from 'better-sqlite3';
import { chmodSync, chownSync, copyFileSync, linkSync, rmSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../domain/errors.js';
import { migrate } from './connection.js';
import { createPrivateFile, fsyncPath, PRIVATE_FILE_MODE, removeWithSidecars, statOrNull, tempPathBeside, whoAmI } from '../../files/durable-file.js';
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
    throw new InputError(
      `the restored database must belong to uid ${owner.uid} (gid ${owner.gid}), the owner of ${live ? target : dirname(target)}, so the service can write it; this process (${whoAmI()}) cannot give it that owner: run restore as that user or as root`,
    );
  }
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
