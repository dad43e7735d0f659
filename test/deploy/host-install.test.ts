// deploy/systemd/install.sh into a scratch root (DESTDIR), then the installed
// `slipgate` command as an operator runs it with sudo: it reads the settings
// file the service reads (no DATABASE_URL given to it), runs as the owner of
// the state directory (a uid with no passwd entry, like systemd's dynamic
// user) and names the sudo user in the ledger. No systemd runs here: the
// wrapper takes its branch for hosts without it; its systemd-run branch and
// the units are only checked (sh -n, systemd-analyze verify in systemd.test.ts).
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretBox } from '../../src/domain/secret-box.js';
import { openStore } from '../../src/store/open.js';
import { cliCommand } from '../../src/cli/startup-guide.js';
import { tempDir } from '../helpers/temp.js';
import { runsAsRoot } from './unprivileged.js';

const exec = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** systemd's dynamic users have no passwd entry once the unit stopped. */
const SERVICE_UID = 61_235;

describe.runIf(runsAsRoot)('the host install and its slipgate command', { timeout: 240_000 }, () => {
  const dir = tempDir('slipgate-host-');
  const root = dir.path;
  const state = join(root, 'var/lib/slipgate');
  afterAll(() => dir.remove());

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/entry.cjs'))) throw new Error('run `npm run build` first: install.sh installs dist/');
    // A root directory like /: every user may pass through it.
    chmodSync(root, 0o755);
    await exec('sh', [join(ROOT, 'deploy/systemd/install.sh')], { env: { ...process.env, DESTDIR: root } });
  });

  /** The installed command, as `sudo -u somchai`'s sudo runs it: DATABASE_URL is nowhere in its environment. */
  async function sudoSlipgate(args: string[], extra: Record<string, string> = {}) {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      SUDO_USER: 'somchai',
      SLIPGATE_ENV_FILE: join(root, 'etc/slipgate/slipgate.env'),
      SLIPGATE_CREDENTIALS_DIR: join(root, 'etc/slipgate/credentials'),
      // /opt/slipgate points at /opt/slipgate-<version> of the real root; here that release is under DESTDIR.
      SLIPGATE_APP: join(root, `opt/slipgate-${VERSION}`),
      SLIPGATE_STATE_DIR: state,
      SLIPGATE_NODE: process.execPath,
      ...extra,
    };
    try {
      const { stdout, stderr } = await exec(join(root, 'usr/local/bin/slipgate'), args, { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('installs the release beside others, the command, the units and the settings files (0600)', async () => {
    const release = join(root, `opt/slipgate-${VERSION}`);
    expect(readlinkSync(join(root, 'opt/slipgate'))).toBe(`/opt/slipgate-${VERSION}`);
    expect(existsSync(join(release, 'dist/entry.cjs'))).toBe(true);
    expect(existsSync(join(release, 'node_modules/better-sqlite3'))).toBe(true);
    expect(lstatSync(join(root, 'usr/local/bin/slipgate')).mode & 0o777).toBe(0o755);
    for (const unit of ['slipgate.service', 'slipgate@.service', 'slipgate-backup.service', 'slipgate-backup.timer', 'slipgate-doctor.service', 'slipgate-doctor.timer']) {
      expect(readFileSync(join(root, 'etc/systemd/system', unit), 'utf8'), unit).toBe(readFileSync(join(ROOT, 'deploy/systemd', unit), 'utf8'));
    }
    for (const settings of ['slipgate.env', 'instance-1.env', 'instance-2.env']) {
      expect(statSync(join(root, 'etc/slipgate', settings)).mode & 0o777, settings).toBe(0o600);
    }
    // SECRETS_KEY made at install, for the units' LoadCredential: root's alone, never printed.
    const credentials = join(root, 'etc/slipgate/credentials');
    expect(statSync(credentials).mode & 0o777).toBe(0o700);
    expect(statSync(join(credentials, 'SECRETS_KEY')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(credentials, 'SECRETS_KEY'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    const env = readFileSync(join(root, 'etc/slipgate/slipgate.env'), 'utf8');
    expect(env).toMatch(/^DATABASE_URL=sqlite:\/var\/lib\/slipgate\/slipgate\.db$/m);
    expect(env).toMatch(/^TRUST_PROXY_HOPS=1$/m);
    // The same release twice is refused, and an edited settings file is kept by a later install.
    const again = await exec('sh', [join(ROOT, 'deploy/systemd/install.sh')], { env: { ...process.env, DESTDIR: root } }).catch((err: { code: number; stderr: string }) => err);
    expect(again).toMatchObject({ code: 2, stderr: expect.stringContaining(`/opt/slipgate-${VERSION} exists already`) });
  });

  it('the command reads the service settings, runs as the state directory owner and names the sudo user', async () => {
    // The one edit this scratch root needs: the state directory lives under it.
    const envFile = join(root, 'etc/slipgate/slipgate.env');
    writeFileSync(envFile, readFileSync(envFile, 'utf8').replace('sqlite:/var/lib/slipgate/', `sqlite:${state}/`));
    // What systemd makes of StateDirectory= for the dynamic user.
    mkdirSync(join(root, 'var/lib'), { recursive: true, mode: 0o755 });
    mkdirSync(state, { mode: 0o700 });
    chownSync(state, SERVICE_UID, SERVICE_UID);

    const created = await sudoSlipgate(['accounts', 'create', '--name', 'Shop', '--credits', '3', '--json']);
    expect(created.stderr).toContain(`using database sqlite:${state}/slipgate.db (from DATABASE_URL)`);
    expect(created.code, created.stderr).toBe(0);
    const { accountId } = JSON.parse(created.stdout) as { accountId: string };
    expect(statSync(join(state, 'slipgate.db')).uid).toBe(SERVICE_UID);

    const topUp = await sudoSlipgate(['--as', 'malee', 'accounts', 'top-up', accountId, '--credits', '2', '--reason', 'cash']);
    expect(topUp.code, topUp.stderr).toBe(0);
    const listed = await sudoSlipgate(['accounts', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: accountId, credits: 5 }]);
    // The credential reaches the command as the service gets it: a webhook secret is stored sealed with it.
    const hook = await sudoSlipgate(['webhooks', 'add', accountId, '--url', 'https://203.0.113.10/hooks', '--json']);
    expect(hook.code, hook.stderr).toBe(0);
    const key = Buffer.from(readFileSync(join(root, 'etc/slipgate/credentials/SECRETS_KEY'), 'utf8'), 'hex');
    const store = await openStore(`sqlite:${join(state, 'slipgate.db')}`);
    try {
      const actors = (await store.listLedger(accountId, 10)).map((e) => e.actor).sort();
      expect(actors).toEqual(['cli:malee', 'cli:somchai']);
      const [endpoint] = await store.listWebhookEndpoints(accountId);
      expect(endpoint!.sealedSecret).toMatch(/^aesgcm1:/);
      expect(secretBox(key).open(endpoint!.sealedSecret)).toBe((JSON.parse(hook.stdout) as { secret: string }).secret);
    } finally {
      await store.close();
    }
    expect((await sudoSlipgate(['--version'])).stdout).toMatch(new RegExp(`^${VERSION.replaceAll('.', '\\.')} \\(revision \\S+\\)\\n$`));
  });

  it('without the settings file (no sudo) it says so and runs nothing', async () => {
    const r = await sudoSlipgate(['accounts', 'list'], { SLIPGATE_ENV_FILE: join(root, 'etc/slipgate/missing.env') });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(`slipgate: cannot read ${join(root, 'etc/slipgate/missing.env')}: run it with sudo (the install steps create that file)\n`);
  });
});

describe('the CLI command the startup log suggests', () => {
  it('is the installed command under systemd, npx under npm, else node and the entry point', () => {
    expect(cliCommand({ INVOCATION_ID: 'f00' }, '/opt/slipgate/dist/entry.cjs', '/opt/slipgate')).toBe('sudo slipgate');
    expect(cliCommand({ npm_command: 'start' }, '/srv/app/dist/entry.cjs', '/srv/app')).toBe('npx slipgate');
    // The image: WORKDIR /app, CMD node dist/entry.cjs serve.
    expect(cliCommand({}, '/app/dist/entry.cjs', '/app')).toBe('node dist/entry.cjs');
    expect(cliCommand({}, '/opt/slipgate/dist/entry.cjs', '/')).toBe('node opt/slipgate/dist/entry.cjs');
    expect(cliCommand({}, '/opt/slipgate/dist/entry.cjs', '/home/ops')).toBe('node /opt/slipgate/dist/entry.cjs');
  });
});
