// A database at the schema an earlier release made, for upgrade tests: every
// migration before the first that mentions `marker`, each recorded in
// schema_migrations as the store's own migrate() records it, so that the
// store then runs only the migrations after it.
import Database from 'better-sqlite3';
import type pg from 'pg';

/** Every migration before the first one whose SQL contains `marker`. */
function migrationsBefore(migrations: readonly string[], marker: string): readonly string[] {
  const at = migrations.findIndex((sql) => sql.includes(marker));
  if (at < 0) throw new Error(`no migration mentions ${marker}`);
  return migrations.slice(0, at);
}

/** A SQLite file at that schema; the caller adds its old rows and closes it. */
export function sqliteBefore(file: string, migrations: readonly string[], marker: string, appliedAt = Date.now()): Database.Database {
  const db = new Database(file);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  migrationsBefore(migrations, marker).forEach((sql, i) => {
    db.exec(sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(i + 1, appliedAt);
  });
  return db;
}

/** The PostgreSQL database `client` is connected to, at that schema. */
export async function postgresBefore(client: pg.Client, migrations: readonly string[], marker: string): Promise<void> {
  await client.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const [i, sql] of migrationsBefore(migrations, marker).entries()) {
    await client.query(sql);
    await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [i + 1]);
  }
}
