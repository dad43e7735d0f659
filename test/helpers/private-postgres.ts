// A PostgreSQL server of the test's own (initdb into a temporary folder, a
// free loopback port), so a test may crash and restart it without touching
// the shared server every other test uses. Built from the machine's own
// PostgreSQL binaries (SLIPGATE_PG_BIN, else the newest under
// /usr/lib/postgresql). PostgreSQL refuses to run as root, so as root the
// server runs as the `postgres` system user.
import { execFile } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  /**
   * SIGSTOP for the postmaster and every process it started, now
   * (synchronously): the instant of a power cut, after which the server
   * neither writes nor syncs anything.
   */
  freeze(): void;
  /** SIGKILL for the same processes (frozen first if they are not yet). */
  kill(): Promise<void>;
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

export interface PrivatePostgresOptions {
  /** Folder to put the data directory in (default: the server's temp folder). */
  dataIn?: string;
  /** More server options, e.g. `-c synchronous_commit=off`. */
  serverOptions?: string;
}

export async function startPrivatePostgres(opts: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const dir = tempDir('slipgate-pg-');
  const dataIn = opts.dataIn ?? dir.path;
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await exec('id', ['-u', 'postgres']);
    const { stdout: gid } = await exec('id', ['-g', 'postgres']);
    chownSync(dir.path, Number(stdout), Number(gid));
    chownSync(dataIn, Number(stdout), Number(gid));
  }
  const data = join(dataIn, 'data');
  const port = await freePort();
  const pg = (tool: string, args: string[]) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : exec(join(bin, tool), args);
  const options = `-p ${port} -k ${dir.path} -c listen_addresses=127.0.0.1 -c max_connections=50 ${opts.serverOptions ?? ''}`;
  const ctl = (...args: string[]) => pg('pg_ctl', ['-D', data, '-l', join(dir.path, 'server.log'), '-w', '-t', '30', ...args]);

  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  await ctl('-o', options, 'start');
  let running = true;
  let frozen: number[] = [];
  const freeze = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // The postmaster first, so it starts no new process after the listing.
    signal(postmaster, 'SIGSTOP');
    frozen = [postmaster, ...childrenOf(postmaster)];
    for (const pid of frozen) signal(pid, 'SIGSTOP');
  };
  const kill = async () => {
    if (frozen.length === 0) freeze();
    for (const pid of frozen) signal(pid, 'SIGKILL');
    running = false;
    await untilGone(frozen);
    frozen = [];
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stopImmediately() {
      await ctl('-m', 'immediate', 'stop');
      running = false;
    },
    async start() {
      for (const lock of [join(data, 'postmaster.pid'), join(dir.path, `.s.PGSQL.${port}.lock`)]) removeStaleLock(lock);
      try {
        await ctl('-o', options, 'start');
      } catch (err) {
        const log = existsSync(join(dir.path, 'server.log')) ? readFileSync(join(dir.path, 'server.log'), 'utf8') : '';
        throw new Error(`${(err as Error).message}\nserver log (end):\n${log.split('\n').slice(-25).join('\n')}`);
      }
      running = true;
    },
    freeze,
    kill,
    async dispose() {
      if (frozen.length > 0) await kill().catch(() => {});
      if (running) await ctl('-m', 'fast', 'stop').catch(() => {});
      dir.remove();
    },
  };
}

/** A process that has exited already needs no signal. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function stat(pid: number): string[] | null {
  try {
    // pid (comm) state ppid …; comm may hold spaces, so split after it.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * A killed postmaster may stay a zombie for a while (PID 1 here reaps
 * lazily), and PostgreSQL takes a zombie's PID in its lock files for a live
 * server. After a real power cut no old PID is alive, so such a lock is stale.
 */
function removeStaleLock(lock: string): void {
  if (!existsSync(lock)) return;
  const pid = Number(readFileSync(lock, 'utf8').split('\n')[0]);
  if ((stat(pid)?.[0] ?? 'Z') === 'Z') rmSync(lock);
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => stat(pid)?.[1] === String(parent));
}

/** Waits for the processes to be dead (gone, or zombies nobody reaps). */
async function untilGone(pids: number[], timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (pids.some((pid) => (stat(pid)?.[0] ?? 'Z') !== 'Z')) {
    if (Date.now() > until) throw new Error(`processes ${pids.join(', ')} still alive after SIGKILL`);
    await new Promise((r) => setTimeout(r, 20));
  }
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
