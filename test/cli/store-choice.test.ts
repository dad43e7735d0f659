// The CLI never guesses silently: it says which database it opens, and the
// commands that only read (or change what exists) refuse to create an empty
// one in the wrong folder.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createMongoDatabase } from '../helpers/mongo.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const exec = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Runs the CLI in `cwd` with DATABASE_URL as given (unset when undefined). */
async function slipgate(cwd: string, databaseUrl: string | undefined, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  if (databaseUrl !== undefined) env.DATABASE_URL = databaseUrl;
  try {
    const { stdout, stderr } = await exec(process.execPath, [...SLIPGATE_CLI, ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The tables of a PostgreSQL database's public schema. */
async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((r) => r.t);
  } finally {
    await client.end();
  }
}

/** The collections a MongoDB database holds, read through the driver. */
async function collectionsOf(url: string): Promise<string[]> {
  const conn = await mongoose.createConnection(url).asPromise();
  try {
    return (await conn.db!.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  } finally {
    await conn.close();
  }
}

const READING = [
  ['accounts', 'list'],
  ['keys', 'list', 'acc_missing'],
  ['audit', 'list'],
  ['doctor'],
  ['admin-tokens', 'list'],
  ['accounts', 'top-up', 'acc_missing', '--credits', '1', '--reason', 'x'],
  ['keys', 'revoke', 'key_missing'],
];

describe('which database the CLI uses', { timeout: 120_000 }, () => {
  const dir = tempDir();
  afterAll(() => dir.remove());

  it('commands that only read refuse to create a database in an empty folder, name the path and DATABASE_URL, and create nothing', async () => {
    const empty = join(dir.path, 'empty');
    await exec('mkdir', [empty]);
    for (const args of READING) {
      const r = await slipgate(empty, undefined, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        `slipgate: using database sqlite:${empty}/data/slipgate.db (the default; DATABASE_URL is not set)`,
        `slipgate: no database at ${empty}/data/slipgate.db; this command does not create one, so nothing was created. Run it in the folder slipgate serves from, or set DATABASE_URL to its database`,
      ]);
      expect(readdirSync(empty), args.join(' ')).toEqual([]);
    }
    const named = join(dir.path, 'elsewhere', 'live.db');
    const r = await slipgate(empty, `sqlite:${named}`, 'doctor');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`using database sqlite:${named} (from DATABASE_URL)`);
    expect(r.stderr).toContain(`no database at ${named};`);
    expect(existsSync(join(dir.path, 'elsewhere'))).toBe(false);
  });

  it('accounts create may create the database (the quickstart); every command then says which one it uses', async () => {
    const shop = join(dir.path, 'shop');
    await exec('mkdir', [shop]);
    const created = await slipgate(shop, undefined, 'accounts', 'create', '--name', 'My shop', '--credits', '100');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Account acc_\S+ \(My shop\) created with 100 credits\./);
    expect(created.stderr).toBe(`slipgate: using database sqlite:${shop}/data/slipgate.db (the default; DATABASE_URL is not set)\n`);
    const listed = await slipgate(shop, undefined, 'accounts', 'list', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'My shop', credits: 100 }]);
    expect(listed.stderr).toBe(`slipgate: using database sqlite:${shop}/data/slipgate.db (the default; DATABASE_URL is not set)\n`);
  });

  it('a server database is named with its password masked, and an unreachable one is one line naming host:port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const r = await slipgate(dir.path, `postgres://ops:pw-Hidden-9@127.0.0.1:${port}/slipgate`, 'accounts', 'list');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `slipgate: using database postgres://ops:***@127.0.0.1:${port}/slipgate (from DATABASE_URL)`,
      `slipgate: cannot open the database at 127.0.0.1:${port} (postgres://ops:***@127.0.0.1:${port}/slipgate): connect ECONNREFUSED 127.0.0.1:${port}; check DATABASE_URL and that the database server is running`,
    ]);
    expect(r.stderr).not.toContain('pw-Hidden-9');
  });

  it('a MongoDB database that does not exist is not created by a reading command', async () => {
    const database = createMongoDatabase();
    try {
      const r = await slipgate(dir.path, database.url, 'accounts', 'list');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('this command does not create one, so nothing was created');
      expect(await collectionsOf(database.url)).toEqual([]);
      // A command that creates: the database is made and migrated.
      const created = await slipgate(dir.path, database.url, 'accounts', 'create', '--name', 'Mongo shop');
      expect(created.code).toBe(0);
      expect(await collectionsOf(database.url)).toContain('accounts');
      expect((await slipgate(dir.path, database.url, 'accounts', 'list', '--json')).code).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('a PostgreSQL database without slipgate tables is not migrated by a reading command, and a newer schema is refused', async () => {
    const database = await createTestDatabase();
    try {
      for (const args of READING) {
        const r = await slipgate(dir.path, database.url, ...args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(`no slipgate database at ${database.url} (it has no slipgate tables); this command does not create one, so nothing was created`);
      }
      expect(await tablesOf(database.url)).toEqual([]);
      const created = await slipgate(dir.path, database.url, 'accounts', 'create', '--name', 'PG shop');
      expect(created.code).toBe(0);
      expect(await tablesOf(database.url)).toContain('accounts');
      expect((await slipgate(dir.path, database.url, 'accounts', 'list', '--json')).code).toBe(0);

      // As if a newer slipgate had migrated it: this one refuses instead of running on tables it does not know.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query('INSERT INTO schema_migrations (version) SELECT max(version) + 1 FROM schema_migrations');
      } finally {
        await client.end();
      }
      const refused = await slipgate(dir.path, database.url, 'accounts', 'list');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/slipgate: the database postgres:\/\/\S+ has schema version (\d+), newer than this slipgate \S+ knows \(\d+\): a newer slipgate migrated it\. Run the newer version, or roll back by restoring the backup taken before the upgrade/);
    } finally {
      await database.drop();
    }
  });

  it('--version prints the version in package.json (from src/: no build, so no revision)', async () => {
    const r = await slipgate(dir.path, undefined, '--version');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${VERSION} (revision unknown)\n`);
  });
});
