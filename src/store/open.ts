// Picks the storage engine from DATABASE_URL. Engines load lazily so an
// embedded install never loads a database driver it does not use.
import { resolve } from 'node:path';
import type { Store } from '../domain/ports/store.js';

export async function openStore(url: string): Promise<Store> {
  let store: Store;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    const { SqliteStore } = await import('./sqlite/sqlite-store.js');
    store = new SqliteStore(path === ':memory:' ? path : resolve(path));
  } else if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    store = new PostgresStore(url);
  } else if (url.startsWith('mongodb://') || url.startsWith('mongodb+srv://')) {
    const { MongoStore } = await import('./mongo/mongo-store.js');
    store = new MongoStore(url);
  } else {
    throw new Error(`unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
  }
  await store.migrate();
  return store;
}
