// Picks the storage engine from DATABASE_URL. Engines load lazily so an
// embedded install never loads a database driver it does not use.
import { existsSync } from 'node:fs';
import type { Store } from '../domain/ports/store.js';
import { NewerSchemaError } from './schema-version.js';
import { databaseAddress, describeDatabaseUrl, sqlitePath } from './database-url.js';

/** The store could not be opened: one line naming the database, the cause and DATABASE_URL. */
export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

/** A command that only reads found no database there, and created none. */
export class MissingDatabaseError extends Error {
  override name = 'MissingDatabaseError';
}

export interface OpenOptions {
  /** Refuse to create a database that does not exist yet (the CLI's reading commands). */
  mustExist?: boolean;
}

export async function openStore(url: string, opts: OpenOptions = {}): Promise<Store> {
  try {
    return await openAndMigrate(url, opts);
  } catch (err) {
    if (err instanceof MissingDatabaseError || err instanceof NewerSchemaError) throw err;
    throw new DatabaseOpenError(openFailure(url, err), { cause: err });
  }
}

async function openAndMigrate(url: string, { mustExist = false }: OpenOptions): Promise<Store> {
  let store: Store;
  /** How an engine that creates a database on first write tells that it does not exist yet. */
  let missing: (() => Promise<boolean>) | undefined;
  const path = sqlitePath(url);
  if (path !== null) {
    // Opening a SQLite file creates it (and its folder).
    if (mustExist && path !== ':memory:' && !existsSync(path)) throw new MissingDatabaseError(`no database at ${path}`);
    const { SqliteStore } = await import('./sqlite/sqlite-store.js');
    store = new SqliteStore(path);
  } else if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    const postgres = new PostgresStore(url);
    missing = () => postgres.isEmpty();
    store = postgres;
  } else if (url.startsWith('mongodb://') || url.startsWith('mongodb+srv://')) {
    const { MongoStore } = await import('./mongo/mongo-store.js');
    const mongo = new MongoStore(url);
    missing = () => mongo.isEmpty();
    store = mongo;
  } else {
    throw new Error(`unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
  }
  try {
    if (mustExist && (await missing?.())) throw new MissingDatabaseError(`no slipgate database at ${describeDatabaseUrl(url)} (it has no slipgate tables)`);
    await store.migrate();
  } catch (err) {
    // A half-opened store holds connections (or a file handle): let them go.
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

/** Codes that mean "this process may not write there" (the folder, the file or the disk). */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY']);

function openFailure(url: string, err: unknown): string {
  const { code, reason } = rootCause(err, url);
  const file = sqlitePath(url);
  if (file !== null) {
    if (code && NOT_WRITABLE.has(code)) {
      return `cannot write the database ${file}: its folder is not writable by this process (${code}); set DATABASE_URL to a writable place (e.g. sqlite:/data/slipgate.db) or fix the folder's owner`;
    }
    return `cannot open the database ${file}: ${reason}; check DATABASE_URL`;
  }
  return `cannot open the database at ${databaseAddress(url) ?? '?'} (${describeDatabaseUrl(url)}): ${reason}; check DATABASE_URL and that the database server is running`;
}

/** The driver's own words: the innermost cause, its code, never the password. */
function rootCause(err: unknown, url: string): { code: string | undefined; reason: string } {
  let code: string | undefined;
  let reason = String(err);
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const c = (e as NodeJS.ErrnoException).code;
    if (typeof c === 'string' && c !== 'unavailable') code = c;
    if (e.message) reason = e.message;
  }
  const password = /^[a-z+]+:\/\/[^:@/?]*:([^@]*)@/i.exec(url)?.[1];
  if (password) reason = reason.split(password).join('***');
  return { code, reason: reason.replace(/\s*\n\s*/g, '; ') };
}
