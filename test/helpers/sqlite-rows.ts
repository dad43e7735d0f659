// Rows of a SQLite database file read through the raw driver (better-sqlite3,
// read-only), bypassing slipgate's store: what is really on disk, also once
// the server that wrote it has stopped. Each call opens and closes its own
// connection, so a reading test holds no handle a restore or a close waits on.
import Database from 'better-sqlite3';

function reading<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every row `sql` selects (or a PRAGMA answers), with `params` bound to its placeholders. */
export function sqliteRows<Row = Record<string, unknown>>(file: string, sql: string, ...params: unknown[]): Row[] {
  return reading(file, (db) => db.prepare(sql).all(...params) as Row[]);
}

/** The first row `sql` selects, undefined when there is none. */
export function sqliteRow<Row = Record<string, unknown>>(file: string, sql: string, ...params: unknown[]): Row | undefined {
  return reading(file, (db) => db.prepare(sql).get(...params) as Row | undefined);
}
