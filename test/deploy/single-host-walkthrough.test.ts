// docs/deploy.md's "One host with systemd", walked through with the shipped
// files only: install.sh into a scratch root, the service started as its
// unit starts it (the settings file, the unit's own settings, as the state
// directory's owner: a uid without a passwd entry, like the dynamic user),
// the single-host nginx recipe in front, and the operator work done with the
// installed `slipgate` command. It ends with a slip verified through TLS, an
// IP-locked key honoured, and a backup restored by the service user. What is
// not run: systemd itself (ports 0 instead of 3000/3001, no systemctl), and
// the upgrade, which test/deploy/upgrade.test.ts walks through.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxQr } from '../../src/upstream/sandbox/sandbox-qr.js';
import { tempDir } from '../helpers/temp.js';
import { callThrough, freePort, RECIPES, startNginx, type Nginx } from './nginx.js';
import { runsAsRoot } from './unprivileged.js';

const exec = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SERVICE_UID = 61_236;
const UNIT = readFileSync(join(ROOT, 'deploy/systemd/slipgate.service'), 'utf8');

describe.runIf(runsAsRoot)('one host with systemd, walked through', { timeout: 240_000 }, () => {
  const dir = tempDir('slipgate-walk-');
  const root = join(dir.path, 'root');
  const state = join(root, 'var/lib/slipgate');
  const release = join(root, `opt/slipgate-${VERSION}`);
  const envFile = join(root, 'etc/slipgate/slipgate.env');
  let nginx: Nginx;
  let service: ChildProcess | undefined;
  const logs: string[] = [];
  afterAll(async () => {
    if (service && service.exitCode === null) service.kill('SIGKILL');
    await nginx?.stop();
    dir.remove();
  });

  /** `sudo slipgate …` with the installed command. */
  async function slipgate(...args: string[]) {
    const env = { PATH: process.env.PATH, SUDO_USER: 'somchai', SLIPGATE_ENV_FILE: envFile, SLIPGATE_APP: release, SLIPGATE_STATE_DIR: state, SLIPGATE_NODE: process.execPath };
    try {
      const { stdout, stderr } = await exec(join(root, 'usr/local/bin/slipgate'), args, { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  /** `systemctl start slipgate`: the unit's Environment= lines, then its EnvironmentFile=, as the service user. */
  /** What the started service logged as its heap limit: bin/sized-node's cap (384 MB and the young generation) or less. */
  let heapLimitMb: number | undefined;
  async function startService(): Promise<string> {
    const unitEnv = [...UNIT.matchAll(/^Environment=(.+)$/gm)].flatMap((m) => m[1]!.split(' '));
    // The one change: ports the kernel picks, not 3000/3001 on a shared machine.
    const settings = [...unitEnv, 'PORT=0', 'ADMIN_PORT=0'].map((kv) => `export ${kv};`).join(' ');
    const script = `${settings} set -a; . "${envFile}"; set +a; export PORT=0 ADMIN_PORT=0 LOG_FORMAT=json; export NODE="$0"; exec setpriv --reuid=${SERVICE_UID} --regid=${SERVICE_UID} --clear-groups -- /bin/sh "$1/bin/sized-node" "$1/dist/entry.cjs" serve`;
    // /opt/slipgate points at /opt/slipgate-<version> of the real root; here that release is under DESTDIR.
    const proc = spawn('sh', ['-c', script, process.execPath, release], { env: { PATH: process.env.PATH, INVOCATION_ID: 'walkthrough' }, stdio: ['ignore', 'pipe', 'pipe'] });
    service = proc;
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; publicUrl?: string; heapLimitMb?: number };
        logs.push(entry.msg ?? '');
        if (entry.msg === 'slipgate listening') {
          heapLimitMb = entry.heapLimitMb;
          resolve(new URL(entry.publicUrl!).host);
        }
      });
      proc.once('exit', (code) => reject(new Error(`slipgate exited (${code}): ${stderr}`)));
    });
  }
  async function stopService(): Promise<void> {
    const exited = once(service!, 'exit');
    service!.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  }
  const verify = (apiKey: string, from: string) =>
    callThrough(nginx, { from, headers: { 'x-api-key': apiKey }, body: JSON.stringify({ qrcode: sandboxQr() }) });

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/entry.cjs'))) throw new Error('run `npm run build` first: install.sh installs dist/');
    mkdirSync(root);
    chmodSync(dir.path, 0o755);
    chmodSync(root, 0o755);
    await exec('sh', [join(ROOT, 'deploy/systemd/install.sh')], { env: { ...process.env, DESTDIR: root } });
    // The scratch root's paths in the settings file; StateDirectory= as systemd makes it.
    writeFileSync(envFile, readFileSync(envFile, 'utf8').replace('sqlite:/var/lib/slipgate/', `sqlite:${state}/`));
    mkdirSync(join(root, 'var/lib'), { recursive: true, mode: 0o755 });
    mkdirSync(state, { mode: 0o700 });
    chownSync(state, SERVICE_UID, SERVICE_UID);
  });

  it('verifies through TLS, honours an IP-locked key, and restores a backup as the service user', async () => {
    const publicHost = await startService();
    expect(heapLimitMb).toBeGreaterThan(0);
    expect(heapLimitMb).toBeLessThan(384 + 64);
    // slipgate@2 is not started: nginx sends everything to 127.0.0.1:3000's stand-in.
    mkdirSync(join(dir.path, 'nginx'));
    nginx = await startNginx(join(dir.path, 'nginx'), [publicHost, `127.0.0.1:${await freePort()}`], RECIPES[1]);

    // systemd sets INVOCATION_ID: the startup log's hint names the installed command.
    await expect.poll(() => logs.find((m) => m.startsWith('no accounts yet'))).toBe('no accounts yet; create one with: sudo slipgate accounts create --name "My shop" --credits 100');
    expect(logs.find((m) => m.startsWith('dashboard:'))).toContain('create one with: sudo slipgate admin-tokens create');

    const created = await slipgate('accounts', 'create', '--name', 'My shop', '--credits', '5', '--json');
    expect(created.code, created.stderr).toBe(0);
    const { accountId, apiKey } = JSON.parse(created.stdout) as { accountId: string; apiKey: string };
    expect(statSync(join(state, 'slipgate.db')).uid).toBe(SERVICE_UID);

    const ok = await verify(apiKey, '127.0.0.1');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'success' });

    const locked = JSON.parse((await slipgate('keys', 'create', accountId, '--allow-ip', '127.0.0.2', '--json')).stdout) as { apiKey: string };
    expect((await verify(locked.apiKey, '127.0.0.2')).body).toMatchObject({ status: 'success' });
    expect((await verify(locked.apiKey, '127.0.0.1')).body).toEqual({ status: 'error', code: 1024, message: 'ip address not allowed' });

    const backup = join(state, 'before.db');
    const backedUp = await slipgate('backup', '--to', backup);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(statSync(backup).uid).toBe(SERVICE_UID);
    expect((await verify(apiKey, '127.0.0.1')).headers['x-credits-remaining']).toBe('2');

    await stopService();
    const restored = await slipgate('restore', '--from', backup);
    expect(restored.code, restored.stderr).toBe(0);
    expect(statSync(join(state, 'slipgate.db')).uid).toBe(SERVICE_UID);
    const again = await startService();
    await nginx.reload((conf) => conf.replace(/server 127\.0\.0\.1:\d+ max_fails=0;/, `server ${again} max_fails=0;`));
    // The books as the backup had them: 5 − 2 verified before it.
    expect((await verify(apiKey, '127.0.0.1')).headers['x-credits-remaining']).toBe('2');
    await stopService();
    const doctor = await slipgate('doctor', '--json');
    expect(doctor.code, doctor.stdout).toBe(0);
  });
});
