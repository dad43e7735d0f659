// What an operator may be shown about DATABASE_URL: the engine, where it
// points, never the password. Used by startup errors and the CLI's
// "using database …" line.
import { resolve } from 'node:path';

/** The SQLite file a `sqlite:` URL names (absolute), ':memory:', or null for another engine. */
export function sqlitePath(url: string): string | null {
  if (!url.startsWith('sqlite:')) return null;
  const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
  return path === ':memory:' ? path : resolve(path);
}

/** The URL with its password replaced by ***; a SQLite URL with its absolute path. */
export function describeDatabaseUrl(url: string): string {
  const file = sqlitePath(url);
  if (file !== null) return `sqlite:${file}`;
  // Not `new URL()`: a Mongo replica-set URL lists several hosts, which URL rejects.
  return url.replace(/^([a-z+]+:\/\/[^:@/?]*):[^@]*@/i, '$1:***@');
}

const DEFAULT_PORTS: Record<string, number> = { postgres: 5432, postgresql: 5432, mongodb: 27017 };

/** host:port (or host list) of a server URL, the default port filled in; null for SQLite. */
export function databaseAddress(url: string): string | null {
  const match = /^([a-z+]+):\/\/(?:[^@/?]*@)?([^/?]*)/i.exec(url);
  if (!match) return null;
  const [, scheme = '', hosts = ''] = match;
  const port = DEFAULT_PORTS[scheme.toLowerCase()];
  return hosts
    .split(',')
    .map((h) => (port && !/:\d+$/.test(h) ? `${h}:${port}` : h))
    .join(',');
}
