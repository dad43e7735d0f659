// Opening the database file a restore may be replacing. `slipgate restore`
// (restore.ts) holds an exclusive lock on the live file from its lease
// check until its copy is renamed over it, and leaves the old file in
// rollback-journal mode. A process that opened the path just before the
// rename holds the old file, the one kept as `.before-restore-*`: writing
// there would lose its charges, and its WAL would be named after the new
// file. So the first read, which waits for the restore's lock, is followed
// by a look at the path: still the file this connection opened, or it is
// closed (it wrote nothing) and the path opened again.
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';

/** Replacements in a row before giving up: one restore replaces the file once. */
const ATTEMPTS = 3;

export function openUnreplaced(path: string, busyTimeoutMs: number): Database.Database {
  for (let attempt = 1; ; attempt++) {
    const before = identity(path);
    const db = new Database(path);
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      // A shared lock: waits (busy_timeout) while a restore holds the file, then fails with SQLITE_BUSY.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      db.close();
      throw err;
    }
    // Unchanged since before the open: the path named this file all along (a rename never brings an old file back).
    if (before !== null && before === identity(path)) return db;
    db.close();
    if (attempt === ATTEMPTS) throw new Error(`the database file ${path} was replaced while it was being opened (a restore?); start again`);
  }
}

function identity(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return null;
  }
}
