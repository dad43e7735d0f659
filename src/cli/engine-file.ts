// Backup and restore are file operations on SQLite only; the server engines
// have their own tools, which this says plainly.
import { resolve } from 'node:path';
import { InputError } from '../domain/errors.js';

const ENGINE_TOOLS = {
  postgres: 'PostgreSQL: use pg_dump (e.g. pg_dump -Fc "$DATABASE_URL" > slipgate.dump; pg_restore -d <new database> slipgate.dump) or point-in-time recovery (base backup + WAL archiving)',
  mongo: 'MongoDB: use mongodump / mongorestore, or your platform\'s snapshots (Atlas, volume snapshots of a replica set member)',
} as const;

/** The SQLite file of DATABASE_URL; for other engines, an InputError naming their tools. */
export function sqliteFileOf(databaseUrl: string, command: 'backup' | 'restore'): string {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === ':memory:') throw new InputError(`${command} needs a database file; DATABASE_URL is an in-memory database`);
    return resolve(path);
  }
  const engine = databaseUrl.startsWith('mongodb') ? 'mongo' : 'postgres';
  throw new InputError(`slipgate ${command} works on SQLite files only. ${ENGINE_TOOLS[engine]}. See docs/operations.md.`);
}
