// Secure by default (issue 44, point 10): under the common umask 022 the
// database `serve --create` makes, its WAL and SHM, a backup and an audit
// export are all readable by their owner only; and a serve without
// SECRETS_KEY makes one beside the database, as private, and says once where. Real child processes of the built CLI (dist/entry.cjs).
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/child.js';
import { tempDir } from '../helpers/temp.js';

const ENTRY = new URL('../../dist/entry.cjs', import.meta.url).pathname;
const run = promisify(execFile);
/** `node dist/entry.cjs …` under umask 022, as a shell with the distribution's default would start it. */
const underUmask022 = (args: string[]) => ['sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, ENTRY, ...args]] as const;

interface Served {
  logs: Record<string, unknown>[];
  stderr: () => string;
  /** SIGTERM, and every line it wrote read. */
  stop: () => Promise<void>;
}

async function serveCreate(env: Record<string, string>): Promise<Served> {
  const [command, args] = underUmask022(['serve', '--create']);
  const proc = spawn(command, args, {
    env: { ...process.env, HOST: '127.0.0.1', ADMIN_HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', SECRETS_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const logs: Record<string, unknown>[] = [];
  const exited = once(proc, 'exit');
  const drained = Promise.all([once(proc.stdout, 'close'), once(proc.stderr, 'close')]);
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'slipgate listening') resolve();
    });
    void exited.then(() => reject(new Error(`slipgate exited before listening: ${stderr}`)));
  });
  return {
    logs,
    stderr: () => stderr,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await Promise.all([exited, drained]);
    },
  };
}

describe('files holding personal data are created mode 0600 whatever the umask', { timeout: 120_000 }, () => {
  const dir = tempDir('slipgate-private-files-');
  afterAll(() => dir.remove());
  const db = join(dir.path, 'state', 'slipgate.db');
  const env = { DATABASE_URL: `sqlite:${db}` };
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('serve --create makes the database, its WAL and SHM and the SECRETS_KEY it makes 0600 (and its folder 0700), and says once where the key is', async () => {
    const served = await serveCreate(env);
    const keyFile = join(dir.path, 'state', 'secrets.key');
    try {
      expect({ db: mode(db), wal: mode(`${db}-wal`), shm: mode(`${db}-shm`), key: mode(keyFile), folder: mode(join(dir.path, 'state')) }).toEqual({ db: 0o600, wal: 0o600, shm: 0o600, key: 0o600, folder: 0o700 });
      // Said once it is up, after the listening line: waited for, then the server stopped and every line read.
      await eventually(async () => served.logs.some((l) => /^SECRETS_KEY: the key made on the first start/.test(String(l.msg))));
      await served.stop();
      const said = served.logs.filter((l) => /^SECRETS_KEY: the key made on the first start/.test(String(l.msg)));
      expect(said).toHaveLength(1);
      expect(said[0]!.msg).toContain(`in ${keyFile} (mode 0600)`);
      expect(served.stderr()).not.toMatch(/SECRETS_KEY is not set/);
    } finally {
      await served.stop();
    }
  });

  it('a backup and an audit export made under umask 022 are 0600 too', async () => {
    const [command, backupArgs] = underUmask022(['backup', '--to', join(dir.path, 'backup.db')]);
    await run(command, backupArgs, { env: { ...process.env, ...env } });
    expect(mode(join(dir.path, 'backup.db'))).toBe(0o600);
    const [, exportArgs] = underUmask022(['audit', 'export', '--out', join(dir.path, 'audit.csv')]);
    await run(command, exportArgs, { env: { ...process.env, ...env } });
    expect(mode(join(dir.path, 'audit.csv'))).toBe(0o600);
  });

  it('with SECRETS_KEY set there is no warning', async () => {
    const served = await serveCreate({ ...env, SECRETS_KEY: 'cd'.repeat(32) });
    try {
      await served.stop();
      expect(served.logs.filter((l) => /SECRETS_KEY/.test(String(l.msg)))).toEqual([]);
      expect(served.stderr()).not.toMatch(/SECRETS_KEY/);
    } finally {
      await served.stop();
    }
  });
});
