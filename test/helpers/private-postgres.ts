// A PostgreSQL server of the test's own (initdb into a temporary folder, a
// free loopback port), so a test may crash and restart it without touching
// the shared server every other test uses. Built from the machine's own
// PostgreSQL binaries (SLIPGATE_PG_BIN, else the newest under
// /usr/lib/postgresql). PostgreSQL refuses to run as root, so as root the
// server runs as the `postgres` system user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './temp.js';

const exec = promisify(execFile);

export interface PrivatePostgres {
  /** Superuser URL of the `postgres` database, trust auth. */
  url: string;
  /**
   * `pg_ctl stop -m immediate`: no shutdown checkpoint, crash recovery on the
   * next start. Not a power cut: the OS keeps what PostgreSQL had written.
   */
  stopImmediately(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  dispose(): Promise<void>;
}

export function postgresBinDir(): string {
  if (process.env.SLIPGATE_PG_BIN) return process.env.SLIPGATE_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server binaries under ${root}; set SLIPGATE_PG_BIN`);
  return join(root, newest, 'bin');
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const dir = tempDir('slipgate-pg-');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await exec('id', ['-u', 'postgres']);
    const { stdout: gid } = await exec('id', ['-g', 'postgres']);
    chownSync(dir.path, Number(stdout), Number(gid));
  }
  const data = join(dir.path, 'data');
  const port = await freePort();
  const pg = (tool: string, args: string[]) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : exec(join(bin, tool), args);
  const options = `-p ${port} -k ${dir.path} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const ctl = (...args: string[]) => pg('pg_ctl', ['-D', data, '-l', join(dir.path, 'server.log'), '-w', '-t', '30', ...args]);

  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  await ctl('-o', options, 'start');
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stopImmediately() {
      await ctl('-m', 'immediate', 'stop');
      running = false;
    },
    async start() {
      await ctl('-o', options, 'start');
      running = true;
    },
    async dispose() {
      if (running) await ctl('-m', 'fast', 'stop').catch(() => {});
      dir.remove();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
