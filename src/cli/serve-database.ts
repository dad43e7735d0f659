// A mistyped SQLite path must not start an empty server that answers every
// merchant 1021: `serve` creates a database only for the quickstart's
// default path, or when asked (--create, DATABASE_CREATE=yes).
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_DATABASE_URL, type Config } from '../config.js';
import { sqlitePath } from '../store/database-url.js';

/** One line saying why `serve` will not create the database; null when it may go on. */
export function missingDatabaseRefusal(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_CREATE'>, create: boolean): string | null {
  const path = sqlitePath(config.DATABASE_URL);
  if (path === null || path === ':memory:' || existsSync(path)) return null;
  if (create || config.DATABASE_CREATE || path === sqlitePath(DEFAULT_DATABASE_URL)) return null;
  const folder = dirname(path);
  const where = existsSync(folder) ? `no database at ${path}` : `no database at ${path} (its folder ${folder} does not exist either)`;
  return `${where}; check DATABASE_URL, or create a new one with serve --create (or DATABASE_CREATE=yes)`;
}
