// Rows of a SQLite database file read through the raw driver (better-sqlite3,
// read-only), bypassing slipgate's store: what is really on disk, also once
// the server that wrote it has stopped.
import Database from 'better-sqlite3';

export function sqliteRows<Row = Record<string, unknown>>(file: string, sql: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Row[];
  } finally {
    db.close();
  }
}
