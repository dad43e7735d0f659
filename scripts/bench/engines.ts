// Throwaway databases for one benchmark run, one per storage engine. An
// engine that cannot be set up here is skipped with the reason, not failed.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { EngineName } from './args.js';
import { openStore } from '../../src/store/open.js';

const run = promisify(execFile);

export interface BenchDatabase {
  engine: EngineName;
  url: string;
  /** Server version and settings, for the results file. */
  description: string;
  drop(): Promise<void>;
}

export type DatabaseSetup = { ok: true; db: BenchDatabase } | { ok: false; reason: string };

/** Per slipgate process; the shared test server allows only 100 connections. */
export const PG_POOL_MAX = 8;

const PG_ADMIN_URL = process.env.SLIPGATE_BENCH_PG_URL ?? process.env.SLIPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createDatabase(engine: EngineName, workDir: string, root: string): Promise<DatabaseSetup> {
  try {
    switch (engine) {
      case 'sqlite':
        // A name of its own: with --against the other revision has a database beside this tree's.
        return { ok: true, db: { engine, url: `sqlite:${join(workDir, `bench-${randomBytes(4).toString('hex')}.db`)}`, description: 'SQLite (WAL; answered charges fsynced before the answer), file in tmp', drop: async () => {} } };
      case 'postgres':
        return await postgres();
      case 'mongodb':
        return await mongodb(root);
    }
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

async function postgres(): Promise<DatabaseSetup> {
  const name = `slipgate_bench_${randomBytes(5).toString('hex')}`;
  const version = await pgAdmin(async (c) => {
    await c.query(`CREATE DATABASE ${name}`);
    return (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  });
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  url.searchParams.set('pool_max', String(PG_POOL_MAX));
  return {
    ok: true,
    db: {
      engine: 'postgres',
      url: url.toString(),
      description: `PostgreSQL ${version} on ${url.host}, pool_max=${PG_POOL_MAX} per process`,
      drop: () => pgAdmin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
    },
  };
}

async function pgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** MONGODB_URI when set, else a throwaway MongoDB-wire server from scripts/mongo-wire.sh. */
async function mongodb(root: string): Promise<DatabaseSetup> {
  const given = process.env.MONGODB_URI?.trim();
  let serverUri = given;
  let stopServer = async () => {};
  if (!serverUri) {
    const script = join(root, 'scripts', 'mongo-wire.sh');
    try {
      serverUri = (await run(script, ['start'], { timeout: 600_000 })).stdout.trim();
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').pop();
      return { ok: false, reason: `MONGODB_URI is not set and scripts/mongo-wire.sh start failed${stderr ? `: ${stderr}` : ''}` };
    }
    const started = serverUri;
    stopServer = async () => void (await run(script, ['stop', started]).catch(() => undefined));
  }
  const url = new URL(serverUri);
  url.pathname = `/slipgate_bench_${randomBytes(5).toString('hex')}`;
  try {
    // Fails fast while the Mongo store is not there yet ("unsupported DATABASE_URL scheme").
    await (await openStore(url.toString())).close();
  } catch (err) {
    await stopServer();
    return { ok: false, reason: `openStore('mongodb://…') failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  return {
    ok: true,
    db: {
      engine: 'mongodb',
      url: url.toString(),
      description: given ? `MongoDB at ${url.host} (MONGODB_URI)` : 'MongoDB-wire server from scripts/mongo-wire.sh (FerretDB; its updates are not atomic, see the script)',
      drop: async () => {
        if (given) await dropMongoDatabase(url.toString());
        await stopServer();
      },
    },
  };
}

async function dropMongoDatabase(url: string): Promise<void> {
  const { default: mongoose } = await import('mongoose');
  const conn = await mongoose.createConnection(url).asPromise();
  try {
    await conn.dropDatabase();
  } finally {
    await conn.close();
  }
}
