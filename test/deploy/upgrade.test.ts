// docs/upgrade.md's host procedure, done with real child processes: two
// releases installed side by side (this build, and a "newer" one whose
// migrations list has one more version), the switch by a symlink like
// /opt/slipgate, a backup before the upgrade, and the rollback: the old
// binary refuses the migrated database in one line, then restores the backup
// and serves again. No systemd here: the service's start and stop are the
// `serve` process and SIGTERM.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { tempDir } from '../helpers/temp.js';

const exec = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const NEWER = `${VERSION}-upgrade-test`;

describe('upgrade and rollback of a host install', { timeout: 240_000 }, () => {
  const dir = tempDir('slipgate-upgrade-');
  const opt = join(dir.path, 'opt');
  const current = join(opt, 'slipgate');
  const state = join(dir.path, 'var-lib-slipgate');
  const backup = join(dir.path, 'backups', 'pre-upgrade.db');
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(state, 'slipgate.db')}`, LOG_LEVEL: 'info', LOG_FORMAT: 'json', PORT: '0', ADMIN_PORT: '0' };
  const running: ChildProcess[] = [];
  afterAll(() => {
    for (const proc of running) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    dir.remove();
  });

  /** A release folder as the install steps make it: dist, package.json and the installed packages. */
  function install(name: string, edit?: (release: string) => void): string {
    const release = join(opt, name);
    cpSync(join(ROOT, 'dist'), join(release, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(release, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(release, 'node_modules'));
    edit?.(release);
    return release;
  }
  /** `ln -sfn <release> /opt/slipgate`: what the unit's ExecStart runs. */
  function switchTo(release: string): void {
    rmSync(current, { force: true });
    symlinkSync(release, current);
  }
  async function slipgate(...args: string[]) {
    try {
      const { stdout, stderr } = await exec(process.execPath, [join(current, 'dist/entry.cjs'), ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }
  /** `systemctl start`: serve from /opt/slipgate; resolves once it listens, or with its exit when it refuses to start. */
  async function start(): Promise<{ proc: ChildProcess; publicUrl: string } | { code: number | null; stderr: string }> {
    const proc = spawn(process.execPath, [join(current, 'dist/entry.cjs'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(proc);
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = once(proc, 'exit').then(([code]) => ({ code: code as number | null, stderr }));
    const listening = new Promise<{ proc: ChildProcess; publicUrl: string }>((resolve) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; publicUrl?: string };
        if (entry.msg === 'slipgate listening') resolve({ proc, publicUrl: entry.publicUrl! });
      });
    });
    return Promise.race([listening, exited]);
  }
  async function stop(server: { proc: ChildProcess }): Promise<void> {
    const exited = once(server.proc, 'exit');
    server.proc.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  }
  async function verify(publicUrl: string, apiKey: string): Promise<{ status: string; credits: string | null }> {
    const res = await fetch(`${publicUrl}/api/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ qrcode: sandboxQr() }),
    });
    return { status: ((await res.json()) as { status: string }).status, credits: res.headers.get('x-credits-remaining') };
  }
  const listening = (started: Awaited<ReturnType<typeof start>>) => {
    if (!('proc' in started)) throw new Error(`serve exited (${started.code}): ${started.stderr}`);
    return started;
  };

  let oldRelease = '';
  let newRelease = '';
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/entry.cjs'))) throw new Error('run `npm run build` first: this test installs dist/');
    mkdirSync(state, { recursive: true });
    mkdirSync(join(dir.path, 'backups'));
    oldRelease = install(`slipgate-${VERSION}`);
    // The next release: one more migration on each SQL engine, and its own version and revision.
    newRelease = install(`slipgate-${NEWER}`, (release) => {
      for (const engine of ['sqlite', 'postgres']) {
        const file = join(release, `dist/store/${engine}/migrations.js`);
        const text = readFileSync(file, 'utf8');
        const end = text.lastIndexOf('];');
        writeFileSync(file, `${text.slice(0, end)}  'CREATE TABLE upgrade_probe (id INTEGER PRIMARY KEY)',\n${text.slice(end)}`);
      }
      const pkg = JSON.parse(readFileSync(join(release, 'package.json'), 'utf8')) as { version: string };
      writeFileSync(join(release, 'package.json'), JSON.stringify({ ...pkg, version: NEWER }));
      writeFileSync(join(release, 'dist/revision.json'), JSON.stringify({ revision: 'next0000' }));
    });
    switchTo(oldRelease);
  });

  it('installs beside the old one, backs up, migrates and serves; rolls back to the old binary with the backup', async () => {
    // The running release, with a merchant who has verified one slip.
    expect((await slipgate('--version')).stdout).toMatch(new RegExp(`^${VERSION} \\(revision \\S+\\)\\n$`));
    const created = await slipgate('accounts', 'create', '--name', 'Shop', '--credits', '5', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
    const old = listening(await start());
    expect(await verify(old.publicUrl, apiKey)).toEqual({ status: 'success', credits: '4' });

    // 1. The backup, taken by the old release while it serves, before anything migrates.
    const backedUp = await slipgate('backup', '--to', backup);
    expect(backedUp.code, backedUp.stderr).toBe(0);

    // 2. Switch: stop, point /opt/slipgate at the new release, start (it migrates).
    await stop(old);
    switchTo(newRelease);
    expect((await slipgate('--version')).stdout).toBe(`${NEWER} (revision next0000)\n`);
    const upgraded = listening(await start());
    expect(await verify(upgraded.publicUrl, apiKey)).toEqual({ status: 'success', credits: '3' });
    await stop(upgraded);

    // 3. Roll back: the old binary alone refuses the migrated database, in one line saying what to do.
    switchTo(oldRelease);
    const refused = await start();
    expect(refused).toMatchObject({ code: 1 });
    const line = (refused as { stderr: string }).stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(
      new RegExp(`^slipgate: the database \\S+slipgate\\.db has schema version (\\d+), newer than this slipgate ${VERSION.replaceAll('.', '\\.')} knows \\(\\d+\\): a newer slipgate migrated it\\. Run the newer version, or roll back by restoring the backup taken before the upgrade`),
    );
    // …and with the backup restored it serves the books as they were before the upgrade.
    const restored = await slipgate('restore', '--from', backup);
    expect(restored.code, restored.stderr).toBe(0);
    const back = listening(await start());
    expect(await verify(back.publicUrl, apiKey)).toEqual({ status: 'success', credits: '3' });
    await stop(back);
    const doctor = await slipgate('doctor', '--json');
    expect(doctor.code, doctor.stdout).toBe(0);
  });
});
