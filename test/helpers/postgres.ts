// Throwaway PostgreSQL databases for engine tests. The server comes from
// SLIPGATE_TEST_PG_URL (a database the user may connect to and CREATE
// DATABASE from), by default the local trust-auth superuser.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';

export const PG_ADMIN_URL = process.env.SLIPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates `slipgate_test_<random>`; drop() removes it even with open connections. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `slipgate_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/** A throwaway database with slipgate's schema, and a raw driver connection to it (plan and probe tests). */
export async function migratedTestDatabase(): Promise<{ database: TestDatabase; client: pg.Client }> {
  const database = await createTestDatabase();
  const store = new PostgresStore(database.url);
  await store.migrate();
  await store.close();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return { database, client };
}
