// `slipgate backup` on SQLite: SQLite's online backup API reads the live file
// from its own connection (WAL lets a reader run beside the serving
// process's writer) into a temporary file beside the target, which is checked
// and only then renamed into place. The copy is created readable by its
// owner only, and checked read-only: it keeps the schema version the live
// file has (a newer CLI never migrates a backup the running version must
// be able to restore).
import Database from 'better-sqlite3';
import { renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../domain/errors.js';
import { checkWritableTarget, createPrivateFile, fsyncPath, removeWithSidecars, statOrNull, tempPathBeside } from '../../files/durable-file.js';
import { describeSqliteFailure, integrityProblems, schemaVersion } from './inspect.js';

// Every page in one step: one step is one read transaction, so the copy is
// one consistent snapshot, and writes committed meanwhile cannot make it
// start over (SQLite restarts a step-wise backup when another process writes).
const ALL_PAGES = 0x7fffffff;

export interface StagedBackup {
  /** The checked copy, not yet at its final name. */
  temp: string;
  schemaVersion: number;
  /** RequestError records in the copy (the books count the successes). */
  failedRequests: number;
}

/**
 * Copies `source` (a slipgate database, possibly being served) to a
 * temporary file beside `target` and checks it page by page. Throws
 * InputError with the reason, leaving nothing behind, on any failure.
 */
export async function stageOnlineBackup(source: string, target: string, overwrite: boolean): Promise<StagedBackup> {
  if (!statOrNull(source)?.isFile()) throw new InputError(`no database at ${source}`);
  checkWritableTarget(target, { overwrite, database: source });
  const temp = tempPathBeside(target);
  try {
    // SQLite writes into the file as it finds it, so the copy keeps this mode.
    createPrivateFile(temp);
    const db = openSource(source);
    try {
      await db.backup(temp, { progress: () => ALL_PAGES });
    } finally {
      db.close();
    }
    selfContained(temp);
    const copy = new Database(temp, { readonly: true, fileMustExist: true });
    try {
      const problems = integrityProblems(copy);
      if (problems.length > 0) throw new InputError(`the copy failed SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`);
      const failedRequests = (copy.prepare('SELECT count(*) AS n FROM request_errors').get() as { n: number }).n;
      return { temp, schemaVersion: schemaVersion(copy)!, failedRequests };
    } finally {
      copy.close();
    }
  } catch (err) {
    removeWithSidecars(temp);
    throw describeSqliteFailure(err, `could not write the backup ${target}`);
  }
}

/** The live database, read through its own connection; a failure here names it, not the backup. */
function openSource(source: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(source, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    if (schemaVersion(db) === null) throw new InputError(`${source} is not a slipgate database (no schema_migrations table)`);
    return db;
  } catch (err) {
    db?.close();
    throw describeSqliteFailure(err, `cannot read the database ${source}`);
  }
}

/**
 * The copy arrives in the live file's WAL mode; in rollback-journal mode it
 * is one file with nothing beside it to ship or lose, and a read-only
 * connection opens it without creating -wal/-shm files. Only the journal
 * mode in the header changes: no table, row or schema version.
 */
function selfContained(path: string): void {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** Flushes the checked copy and gives it its final name, atomically. */
export function publishStaged(temp: string, target: string): void {
  try {
    fsyncPath(temp);
    renameSync(temp, target);
    fsyncPath(dirname(target));
  } catch (err) {
    removeWithSidecars(temp);
    throw describeSqliteFailure(err, `could not put the file in place at ${target}`);
  }
}
