// `slipgate serve` that cannot start says why in one line on stderr, names
// the setting to change, exits non-zero, and leaves nothing behind: no data
// folder, no lease row, no migrated tables.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { sqliteRow } from '../helpers/sqlite-rows.js';
import { tempDir } from '../helpers/temp.js';
import { SLIPGATE_CLI } from '../helpers/slipgate-command.js';

const STACK_LINE = /^\s{4}at /m;

interface Failed {
  code: number | null;
  stderr: string;
  stdout: string;
}

async function serve(env: Record<string, string>, options: { uid?: number; gid?: number; cwd?: string; args?: string[] } = {}): Promise<Failed> {
  const { args = [], ...spawnOptions } = options;
  const proc = spawn(process.execPath, [...SLIPGATE_CLI, 'serve', ...args], {
    env: { ...process.env, HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', DATABASE_CREATE: 'yes', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...spawnOptions,
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const [code] = (await once(proc, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stderr, stdout };
}

/** The one line, and nothing that looks like a stack. */
function oneLine(failed: Failed): string {
  expect(failed.code).toBe(1);
  expect(failed.stdout).not.toContain('slipgate listening');
  const lines = failed.stderr.trim().split('\n');
  expect(lines, failed.stderr).toHaveLength(1);
  expect(failed.stderr).not.toMatch(STACK_LINE);
  return lines[0]!;
}

async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as { port: number }).port, server };
}

async function freePort(): Promise<number> {
  const { port, server } = await occupiedPort();
  await new Promise((r) => server.close(r));
  return port;
}

describe('startup failures', { timeout: 90_000 }, () => {
  const dir = tempDir();
  const blockers: Server[] = [];
  afterAll(() => {
    for (const s of blockers) s.close();
    dir.remove();
  });

  it('a public port in use names PORT and the address, and creates no data folder', async () => {
    const { port, server } = await occupiedPort();
    blockers.push(server);
    const folder = join(dir.path, 'port-public');
    const line = oneLine(await serve({ PORT: String(port), DATABASE_URL: `sqlite:${folder}/data/slipgate.db` }));
    expect(line).toBe(`slipgate: port ${port} on 127.0.0.1 is already in use; stop the other process or set PORT to a free port`);
    expect(existsSync(folder)).toBe(false);
  });

  it('an admin port in use names ADMIN_PORT, and registers no lease in an existing SQLite database', async () => {
    const { port, server } = await occupiedPort();
    blockers.push(server);
    const file = join(dir.path, 'port-admin', 'slipgate.db');
    await (await openStore(`sqlite:${file}`)).close();
    const line = oneLine(await serve({ ADMIN_PORT: String(port), DATABASE_URL: `sqlite:${file}` }));
    expect(line).toMatch(new RegExp(`^slipgate: port ${port} on 127\\.0\\.0\\.1 is already in use; .*set ADMIN_PORT to a free port$`));
    expect(sqliteRow(file, 'SELECT count(*) AS n FROM instance_leases')).toEqual({ n: 0 });
  });

  it('a port in use on PostgreSQL leaves the database untouched: no migrations, no lease', async () => {
    const { port, server } = await occupiedPort();
    blockers.push(server);
    const database = await createTestDatabase();
    try {
      const line = oneLine(await serve({ PORT: String(port), DATABASE_URL: database.url }));
      expect(line).toContain('set PORT to a free port');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const tables = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      await client.end();
      expect(tables.rows).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('an address this machine does not have names HOST / ADMIN_HOST', async () => {
    const folder = join(dir.path, 'no-address');
    // 192.0.2.0/24 is TEST-NET-1: never assigned to a real interface.
    const publicLine = oneLine(await serve({ HOST: '192.0.2.1', DATABASE_URL: `sqlite:${folder}/slipgate.db` }));
    expect(publicLine).toBe('slipgate: address 192.0.2.1 is not an address of this machine; set HOST to one of its addresses (or 0.0.0.0 for all)');
    const adminLine = oneLine(await serve({ ADMIN_HOST: '192.0.2.1', DATABASE_URL: `sqlite:${folder}/slipgate.db` }));
    expect(adminLine).toContain('set ADMIN_HOST to one of its addresses');
    expect(existsSync(folder)).toBe(false);
  });

  it('a data folder the process may not write names the path and DATABASE_URL, and creates nothing', async () => {
    const parent = join(dir.path, 'read-only');
    mkdirSync(parent);
    chmodSync(dir.path, 0o755);
    chmodSync(parent, 0o555);
    // Root writes anywhere, so as root the server runs as `nobody`, as in a container.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const file = join(parent, 'data', 'slipgate.db');
    const line = oneLine(await serve({ DATABASE_URL: `sqlite:${file}` }, asUser));
    expect(line).toMatch(/^slipgate: cannot write the database .*read-only\/data\/slipgate\.db: its folder is not writable by this process \((EACCES|EROFS|EPERM)\); set DATABASE_URL to a writable place/);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('an unreachable PostgreSQL names host:port and the driver reason, the password masked', async () => {
    const port = await freePort();
    const url = `postgres://slipgate:pw-Secret-42@127.0.0.1:${port}/slipgate`;
    const line = oneLine(await serve({ DATABASE_URL: url }));
    expect(line).toBe(
      `slipgate: cannot open the database at 127.0.0.1:${port} (postgres://slipgate:***@127.0.0.1:${port}/slipgate): connect ECONNREFUSED 127.0.0.1:${port}; check DATABASE_URL and that the database server is running`,
    );
  });

  it('an unreachable MongoDB names host:port and the driver reason, the password masked', async () => {
    const port = await freePort();
    const url = `mongodb://slipgate:pw-Secret-42@127.0.0.1:${port}/slipgate?serverSelectionTimeoutMS=1000`;
    const failed = await serve({ DATABASE_URL: url });
    const line = oneLine(failed);
    expect(line).toMatch(new RegExp(`^slipgate: cannot open the database at 127\\.0\\.0\\.1:${port} \\(mongodb://slipgate:\\*\\*\\*@127\\.0\\.0\\.1:${port}/`));
    expect(line).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(failed.stderr + failed.stdout).not.toContain('pw-Secret-42');
  });

  it('a bad bank configuration names UPSTREAMS_FILE and the provider field, before the store is opened', async () => {
    const file = join(dir.path, 'upstreams.json');
    writeFileSync(file, JSON.stringify([{ name: 'main-bank', provider: 'no-such-bank', weight: 1 }]));
    const folder = join(dir.path, 'bad-banks');
    const line = oneLine(await serve({ UPSTREAMS_FILE: file, DATABASE_URL: `sqlite:${folder}/slipgate.db` }));
    expect(line).toMatch(/^slipgate: bad configuration: invalid UPSTREAMS_FILE.*entry\[0\] \("main-bank"\) provider: /);
    expect(existsSync(folder)).toBe(false);
  });

  it('a mistyped SQLite path is refused in one line naming it, and nothing is created', async () => {
    // DATABASE_CREATE empty counts as unset, as every setting does.
    const missingFolder = join(dir.path, 'nonexistent', 'dir');
    const line = oneLine(await serve({ DATABASE_URL: `sqlite:${missingFolder}/x.db`, DATABASE_CREATE: '' }));
    expect(line).toBe(
      `slipgate: no database at ${missingFolder}/x.db (its folder ${missingFolder} does not exist either); check DATABASE_URL, or create a new one with serve --create (or DATABASE_CREATE=yes)`,
    );
    expect(existsSync(join(dir.path, 'nonexistent'))).toBe(false);

    const folder = join(dir.path, 'typo');
    mkdirSync(folder);
    const typo = oneLine(await serve({ DATABASE_URL: `sqlite:${folder}/slipgat.db`, DATABASE_CREATE: 'no' }));
    expect(typo).toBe(`slipgate: no database at ${folder}/slipgat.db; check DATABASE_URL, or create a new one with serve --create (or DATABASE_CREATE=yes)`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a new SQLite database is created when asked (--create) and at the quickstart default path', async () => {
    // A port in use stops each start right after the database check: the line says how far it got.
    const { port, server } = await occupiedPort();
    blockers.push(server);
    const inUse = `slipgate: port ${port} on 127.0.0.1 is already in use; stop the other process or set PORT to a free port`;
    const asked = oneLine(await serve({ PORT: String(port), DATABASE_URL: `sqlite:${join(dir.path, 'asked')}/new.db`, DATABASE_CREATE: '' }, { args: ['--create'] }));
    expect(asked).toBe(inUse);
    const quickstart = join(dir.path, 'quickstart');
    mkdirSync(quickstart);
    const byDefault = oneLine(await serve({ PORT: String(port), DATABASE_URL: '', DATABASE_CREATE: '' }, { cwd: quickstart }));
    expect(byDefault).toBe(inUse);
    const bad = await serve({ DATABASE_URL: `sqlite:${join(dir.path, 'bad')}/x.db`, DATABASE_CREATE: 'maybe' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('DATABASE_CREATE: must be yes or no (got "maybe")');
    expect(existsSync(join(dir.path, 'bad'))).toBe(false);
  });

  it('LOG_LEVEL=debug adds the stack for a developer', async () => {
    const { port, server } = await occupiedPort();
    blockers.push(server);
    const failed = await serve({ PORT: String(port), LOG_LEVEL: 'debug', DATABASE_URL: `sqlite:${join(dir.path, 'debug')}/slipgate.db` });
    expect(failed.code).toBe(1);
    expect(failed.stderr.split('\n')[0]).toContain('already in use');
    expect(failed.stderr).toMatch(STACK_LINE);
  });
});
